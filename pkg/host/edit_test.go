package host_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/chat/provider"
	"github.com/magenta-nvim/magenta/pkg/nvimtest"
)

// The model edits a file the user has open with unsaved changes: the edit
// lands in the buffer (their change kept), is saved, and `u` gives the
// user their text back. <CR> on the diff opens the file at the change.
func TestEditOpenModifiedBufferAndUndo(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := startShell(t, bin)
		path := filepath.Join(n.Dir, "app.go")
		require.NoError(t, os.WriteFile(path, []byte("package app\n\nfunc Old() {}\n"), 0o644))
		n.Lua(`require("magenta.ui").open_file(...); vim.api.nvim_buf_set_lines(0, 1, 2, false, {"// user's unsaved note"})`, path)

		n.FocusRole("input")
		n.Type("rename Old")
		n.Keys("<CR>")
		call := fake.Next(t)
		call.ToolUse("tu_e", "edit_file", map[string]any{"path": "app.go", "old_string": "func Old() {}", "new_string": "func New() {}"})
		call.Stop(provider.StopToolUse)
		next := fake.Next(t)
		res, isErr := lastResult(t, next)
		require.False(t, isErr, res)
		next.Reply("renamed")
		text := n.WaitForText("display", "renamed")
		assert.Contains(t, text, "✓ edit_file: app.go — app.go +1 -1")
		assert.Contains(t, text, "  +func New() {}")

		disk, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, "package app\n// user's unsaved note\nfunc New() {}\n", string(disk), "the user's change and the edit, saved")

		// Undo in the file's window gives the user's text back.
		n.Lua(`for _, w in ipairs(vim.api.nvim_list_wins()) do if vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(w)) == ... then vim.api.nvim_set_current_win(w) end end`, path)
		n.Keys("u")
		var lines []string
		n.LuaResult(&lines, `return vim.api.nvim_buf_get_lines(0, 0, -1, false)`)
		assert.Equal(t, []string{"package app", "// user's unsaved note", "func Old() {}"}, lines)

		// <CR> on the diff opens the file at the changed line.
		n.FocusRole("display")
		n.CursorTo("+func New() {}")
		n.Keys("<CR>")
		n.WaitFor("the file at the change", func() bool {
			var name string
			var line int
			n.LuaResult(&name, `return vim.api.nvim_buf_get_name(0)`)
			n.LuaResult(&line, `return vim.fn.line(".")`)
			return name == path && line == 3
		}, func() string { return strings.Join(n.Lines(0), "\n") })
	})
}
