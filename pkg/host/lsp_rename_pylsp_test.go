package host_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/nvimtest"
)

// rename_symbol through a second server, pylsp (jedi's rename), so the
// code is not gopls-shaped: jedi sends whole files, computed from the
// disk, so a rename into a file with unsaved changes is refused rather
// than put over them; saved, a function is renamed in its module and in
// the file that imports it, and one undo in the open buffer takes its
// part back.
func TestRenameSymbolWithPylsp(t *testing.T) {
	pylsp, err := exec.LookPath("pylsp")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("pylsp is not installed (apt-get install python3-pylsp)")
		}
		t.Skip("pylsp is not installed (apt-get install python3-pylsp)")
	}
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := startShell(t, bin)
		lib, app := filepath.Join(n.Dir, "lib.py"), filepath.Join(n.Dir, "app.py")
		require.NoError(t, os.WriteFile(lib, []byte("def greet(name):\n    return \"hi \" + name\n"), 0o644))
		require.NoError(t, os.WriteFile(app, []byte("from lib import greet\n\nprint(greet(\"a\"))\n"), 0o644))
		attachServer(t, n, "pylsp", "python", []string{pylsp})
		n.Lua(`require("magenta.ui").open_file(...)`, app)
		appBuf := bufferOf(n, app)
		require.NotZero(t, appBuf)
		n.Lua(`vim.api.nvim_buf_set_lines(..., 1, 1, false, { "# an unsaved note" })`, appBuf)

		// jedi computes its edit of app.py from the disk: with the note
		// unsaved, that edit would put the old text back over it. It is
		// refused, and nothing changes.
		turn := askTool(t, n, fake, "rename_symbol", map[string]any{"filePath": "lib.py", "symbol": "greet", "newName": "hello"})
		require.True(t, turn.isErr, turn.result)
		assert.Contains(t, turn.result, "would change more than the name")
		assert.Contains(t, n.Text(appBuf), "# an unsaved note")
		assert.Contains(t, readFile(t, lib), "def greet(name):")

		// Saved, the rename goes through both files.
		n.Lua(`vim.api.nvim_buf_call(..., function() vim.cmd("silent write") end)`, appBuf)
		turn = askTool(t, n, fake, "rename_symbol", map[string]any{"filePath": "lib.py", "symbol": "greet", "newName": "hello"})
		require.False(t, turn.isErr, turn.result)
		assert.Contains(t, turn.result, "Renamed greet to hello in 2 files (pylsp):")
		assert.Contains(t, readFile(t, lib), "def hello(name):")
		appText := n.Text(appBuf)
		assert.Contains(t, appText, "from lib import hello")
		assert.Contains(t, appText, `print(hello("a"))`)
		assert.Contains(t, appText, "# an unsaved note")

		// One undo in the open buffer takes its part of the rename back.
		appText = undo(n, appBuf)
		assert.Contains(t, appText, "from lib import greet")
		assert.Contains(t, appText, `print(greet("a"))`)
		assert.Contains(t, appText, "# an unsaved note")
	})
}
