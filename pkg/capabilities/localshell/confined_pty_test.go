package localshell

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/sandbox"
	"github.com/magenta-nvim/magenta/pkg/sandbox/sandboxtest"
)

func confinedShell(t *testing.T, unsupervised bool) (*Shell, string) {
	st := sandboxtest.Require(t)
	ws := t.TempDir()
	home := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(home, "secret.txt"), []byte("HOME-SECRET"), 0o600))
	sh := New(Options{LogRoot: t.TempDir(), Cwd: ws, Unsupervised: unsupervised,
		Confiner: BwrapConfiner{Status: func() (sandbox.Status, error) { return st, nil }, Policy: sandbox.Policy{Workspace: ws, Home: home}}})
	return sh, home
}

// An interactive command keeps a real terminal inside the sandbox: it
// reads the answer typed into it, has a controlling terminal (/dev/tty
// opens), Ctrl-C interrupts it, and it sees no more of the host than any
// confined command.
func TestConfinedInteractiveCommandHasATerminal(t *testing.T) {
	for _, unsupervised := range []bool{false, true} {
		t.Run(map[bool]string{false: "supervised", true: "unsupervised"}[unsupervised], func(t *testing.T) {
			sh, home := confinedShell(t, unsupervised)
			r := startInteractive(t, context.Background(), sh,
				`cat `+home+`/secret.txt; tty; echo x > /dev/tty && read -p "Enter your name: " name && echo "Hello, $name"`,
				capabilities.ExecOptions{Sandbox: true})
			term := r.terminal(t)
			waitScreen(t, term, "Enter your name:")
			_, err := term.Write([]byte("Ada\r"))
			require.NoError(t, err)
			res := r.wait(t)
			assert.True(t, res.Confined)
			assert.True(t, res.Interactive)
			assert.Empty(t, res.NotInteractive)
			assert.Equal(t, 0, res.ExitCode)
			text := strings.Join(texts(res), "\n")
			assert.Contains(t, text, "Hello, Ada")
			assert.NotContains(t, text, "not a tty") // bwrap's /dev shows the terminal as /dev/console
			assert.NotContains(t, text, "HOME-SECRET")

			r = startInteractive(t, context.Background(), sh, "echo ready; sleep 1000", capabilities.ExecOptions{Sandbox: true})
			term = r.terminal(t)
			waitScreen(t, term, "ready")
			_, err = term.Write([]byte("\x03"))
			require.NoError(t, err)
			res = r.wait(t)
			assert.False(t, res.Cancelled || res.TimedOut)
			assert.NotEqual(t, 0, res.ExitCode, "Ctrl-C ended it")
		})
	}
}
