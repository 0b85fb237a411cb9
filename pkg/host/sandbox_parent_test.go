package host_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/nvimtest"
	"github.com/magenta-nvim/magenta/pkg/sandbox/sandboxtest"
)

// parentMakefile prints who is pid 1 of the command's PID namespace:
// the confinement parent's init, or bubblewrap.
const parentMakefile = `all:
	echo built > build.out
	-cat $(HOME)/.ssh/id_rsa
	@tr '\0' ' ' < /proc/1/cmdline; echo
`

// With the default options, confined commands go through the session's
// confinement parent once it is ready (the first one starts it), with
// the same confinement: the key stays hidden, the build is written, and
// :checkhealth's request says the parent runs.
func TestConfinedCommandsGoThroughTheParent(t *testing.T) {
	sandboxtest.Require(t)
	home := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".ssh"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte("PRIVATE-KEY-hunter2\n"), 0o600))
	t.Setenv("HOME", home)
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := start(t, bin)
		n.Setup(`{ shell = { logRoot = "` + filepath.Join(n.Dir, "logs") + `" } }`)
		require.NoError(t, os.WriteFile(filepath.Join(n.Dir, "Makefile"), []byte(parentMakefile), 0o644))
		n.Command("Magenta toggle")
		n.WaitForText("display", "sandbox on")

		askBash(t, n, fake, "make", "tu_first")
		next := fake.Next(t)
		res, isErr := lastResult(t, next)
		assert.False(t, isErr, res)
		assert.Contains(t, res, "It ran in the sandbox")
		next.Reply("built")
		n.WaitForText("display", "built")

		var why string
		deadline := time.Now().Add(20 * time.Second)
		for {
			n.LuaResult(&why, `local st = require('magenta.host').request('sandbox'); return st.parent_ready and "ready" or tostring(st.parent_why)`)
			if why == "ready" {
				break
			}
			require.True(t, time.Now().Before(deadline), "the confinement parent did not become ready: %s", why)
			time.Sleep(20 * time.Millisecond) // polling the host's state, with a deadline
		}

		askBash(t, n, fake, "make", "tu_second")
		next = fake.Next(t)
		res, isErr = lastResult(t, next)
		assert.False(t, isErr, res)
		assert.Contains(t, res, "It ran in the sandbox")
		assert.Contains(t, res, "__magenta_confinement_init", "pid 1 is the parent's init")
		assert.NotContains(t, res, "hunter2", "the key is hidden from confined commands")
		assert.FileExists(t, filepath.Join(n.Dir, "build.out"))
		next.Reply("again")
		n.WaitForText("display", "again")
	})
}
