package host_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/nvimtest"
)

const fixtureUnusedImport = `package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Println("hi")
}
`

// actionIndex returns the index code_actions gave the first action whose
// line contains want, 0 when none.
func actionIndex(listing, want string) int {
	for _, line := range strings.Split(listing, "\n") {
		var i int
		var rest string
		if n, _ := fmt.Sscanf(line, "%d. %s", &i, &rest); n == 2 && strings.Contains(line, want) {
			return i
		}
	}
	return 0
}

// code_actions lists gopls's actions for an unused import with indexes;
// apply_code_action applies the edit-only fix (one undo step), and an
// index of a listing the file has changed since is refused.
func TestCodeActions(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := startShell(t, bin)
		goModule(t, n.Dir, map[string]string{"main.go": fixtureUnusedImport})
		lazyGopls(t, n)
		path := filepath.Join(n.Dir, "main.go")

		turn := askTool(t, n, fake, "diagnostics", map[string]any{"filePath": "main.go"})
		require.False(t, turn.isErr, turn.result)
		require.Contains(t, turn.result, `"os" imported and not used`)

		list := func() int {
			turn := askTool(t, n, fake, "code_actions", map[string]any{"filePath": "main.go", "startLine": 4, "endLine": 5})
			require.False(t, turn.isErr, turn.result)
			assert.Contains(t, turn.offered, "apply_code_action")
			assert.Contains(t, turn.result, "Code actions for lines 4-5 of main.go (apply one with apply_code_action and its index):\n1. ")
			i := actionIndex(turn.result, "Organize Imports [source.organizeImports] (gopls)")
			require.NotZero(t, i, turn.result)
			return i
		}
		i := list()
		buf := bufferOf(n, path)
		require.NotZero(t, buf, "the tool loaded main.go")
		// The user types in the file: the listing no longer fits it.
		n.Lua(`vim.api.nvim_buf_set_lines(..., -1, -1, false, { "// a note" })`, buf)
		turn = askTool(t, n, fake, "apply_code_action", map[string]any{"index": i})
		require.True(t, turn.isErr, turn.result)
		assert.Contains(t, turn.result, "main.go changed since its code actions were listed")
		assert.Contains(t, turn.result, "call code_actions again")
		assert.Equal(t, fixtureUnusedImport, readFile(t, path))

		i = list()
		turn = askTool(t, n, fake, "apply_code_action", map[string]any{"index": 99})
		require.True(t, turn.isErr, turn.result)
		assert.Contains(t, turn.result, "index 99 is not in the last code_actions listing")

		turn = askTool(t, n, fake, "apply_code_action", map[string]any{"index": i})
		require.False(t, turn.isErr, turn.result)
		assert.Contains(t, turn.result, `Applied "Organize Imports" (gopls):`+"\nmain.go +")
		text := n.Text(buf)
		assert.NotContains(t, text, `"os"`)
		assert.Contains(t, text, "// a note", "the user's text is kept")
		assert.NotContains(t, readFile(t, path), `"os"`, "saved")
		// One undo takes the action back whole; the note stays.
		text = undo(n, buf)
		assert.Contains(t, text, "\t\"os\"\n")
		assert.Contains(t, text, "// a note")

		// The listing was used up: the file changed.
		turn = askTool(t, n, fake, "apply_code_action", map[string]any{"index": i})
		require.True(t, turn.isErr, turn.result)
		assert.Contains(t, turn.result, "no code actions are listed in this thread")
	})
}
