package host_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/nvimtest"
)

// The visual keymap pastes the selected lines (unsaved text included)
// into the input as path:lines and a fenced block with the filetype,
// opening the hidden sidebar and putting the cursor below; the range
// command appends another block after what is there. Without a range it
// says what is missing.
func TestPasteSelection(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, _ := start(t, bin)
		writeFile(t, filepath.Join(n.Dir, "src", "a.go"), "package a\n")
		n.Command("edit src/a.go")
		n.Lua(`vim.api.nvim_buf_set_lines(0, 0, -1, false, { "package a", "", "func A() int {", "\treturn 1 // ` + "```" + `", "}" })`)

		n.Keys(`3GVj\mp`)
		input := n.Buffer("input")
		require.NotZero(t, input, "the sidebar opened")
		want := []string{
			"src/a.go:3-4",
			"````go",
			"func A() int {",
			"\treturn 1 // ```",
			"````",
			"",
		}
		assert.Equal(t, want, n.Lines(input))
		var where []int
		n.LuaResult(&where, `return { vim.api.nvim_get_current_buf(), vim.api.nvim_win_get_cursor(0)[1] }`)
		assert.Equal(t, []int{input, 6}, where, "the cursor is in the input, below the block")

		n.Lua(`vim.fn.win_gotoid(vim.fn.win_findbuf(vim.fn.bufnr("src/a.go"))[1])`)
		n.Command("1Magenta paste-selection")
		want = append(want, "", "src/a.go:1", "```go", "package a", "```", "")
		assert.Equal(t, want, n.Lines(input))

		n.Lua(`vim.fn.win_gotoid(vim.fn.win_findbuf(vim.fn.bufnr("src/a.go"))[1])`)
		err := n.V.Command("Magenta paste-selection")
		require.Error(t, err)
		assert.Contains(t, err.Error(), "paste-selection needs a selection")
		assert.Equal(t, want, n.Lines(input), "nothing was pasted")
	})
}
