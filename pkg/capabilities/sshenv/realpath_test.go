package sshenv

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities/sshenv/sshtest"
)

// TestRealPath: symlinks resolved in every component, a missing tail
// appended to its deepest existing ancestor, a relative path taken from
// the remote home.
func TestRealPath(t *testing.T) {
	t.Parallel()
	env, c, srv := newEnv(t, "")
	ctx := context.Background()
	const d = "/tmp/realpath"
	sshtest.Docker(t, "exec", "-u", "1000", srv.Container, "sh", "-c",
		"mkdir -p "+d+"/real/sub && touch "+d+"/real/file && ln -s real "+d+"/link && ln -s "+d+"/nowhere "+d+"/dangling")
	for in, want := range map[string]string{
		d + "/real/file":           d + "/real/file",
		d + "/link/file":           d + "/real/file",
		d + "/link/":               d + "/real",
		d + "/link/sub/..":         d + "/real",
		d + "/link/new/deeper":     d + "/real/new/deeper",
		d + "/link/new/../x":       d + "/real/x",
		d + "/link/new//x/":        d + "/real/new/x",
		d + "/dangling":            d + "/nowhere",
		"/no-such-top/a":           "/no-such-top/a",
		"/":                        "/",
		"rel-missing/x":            env.Home + "/rel-missing/x",
		".":                        env.Home,
		"it's \\ odd/$HOME/`id`\n": env.Home + "/it's \\ odd/$HOME/`id`\n",
	} {
		got, err := c.RealPath(ctx, in)
		require.NoError(t, err, "%q", in)
		assert.Equal(t, want, got, "%q", in)
	}
	_, err := c.RealPath(ctx, "")
	require.Error(t, err)
}
