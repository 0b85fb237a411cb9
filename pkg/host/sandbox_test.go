package host_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/nvimtest"
	"github.com/magenta-nvim/magenta/pkg/sandbox/sandboxtest"
)

// plantedMakefile builds build.out, and tries to read the user's SSH key
// and to write into their home; the escape target fails the build.
const plantedMakefile = `all:
	echo built > build.out
	-cat $(HOME)/.ssh/id_rsa
	-echo escaped > $(HOME)/escaped.txt

escape:
	echo escaped > $(HOME)/escaped.txt
`

// A workspace build runs confined without asking: build.out is made, the
// key is not read, nothing is written outside. A build the sandbox blocks
// offers to run it outside; declined, the result says what was blocked.
func TestWorkspaceBuildRunsConfinedWithoutAsking(t *testing.T) {
	sandboxtest.Require(t)
	home := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".ssh"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte("PRIVATE-KEY-hunter2\n"), 0o600))
	t.Setenv("HOME", home)
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := start(t, bin)
		n.Setup(`{ shell = { logRoot = "` + filepath.Join(n.Dir, "logs") + `" } }`)
		require.NoError(t, os.WriteFile(filepath.Join(n.Dir, "Makefile"), []byte(plantedMakefile), 0o644))
		n.Command("Magenta toggle")
		n.WaitForText("display", "sandbox on")

		askBash(t, n, fake, "make", "tu_make")
		next := fake.Next(t) // no approval: the result comes at once
		res, isErr := lastResult(t, next)
		assert.False(t, isErr, res)
		assert.Contains(t, res, "It ran in the sandbox")
		assert.NotContains(t, res, "hunter2", "the key is hidden from confined commands")
		assert.FileExists(t, filepath.Join(n.Dir, "build.out"))
		assert.NoFileExists(t, filepath.Join(home, "escaped.txt"))
		next.Reply("built")
		n.WaitForText("display", "confined")

		askBash(t, n, fake, "make escape", "tu_escape")
		text := n.WaitForText("display", "run it again outside the sandbox?")
		assert.Contains(t, text, "the sandbox blocked writing")
		n.FocusRole("display")
		n.CursorTo("> NO")
		n.Keys("<CR>")
		next = fake.Next(t)
		res, isErr = lastResult(t, next)
		assert.True(t, isErr)
		assert.Contains(t, res, "the sandbox blocked writing "+filepath.Join(home, "escaped.txt"))
		assert.NoFileExists(t, filepath.Join(home, "escaped.txt"))
		next.Reply("ok")
	})
}
