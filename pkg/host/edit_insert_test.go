package host_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/nvimtest"
	"github.com/magenta-nvim/magenta/pkg/provider"
)

// typeAsUser queues keys as typed keys (nvim_input), so Insert mode stays
// on between calls; callers wait for the effect they expect.
func typeAsUser(n *nvimtest.Nvim, keys string) {
	n.Lua(`vim.api.nvim_input(vim.api.nvim_replace_termcodes(..., true, false, true))`, keys)
}

// waitBuffer waits until Neovim is in mode (nvim_get_mode) and path's
// buffer holds lines.
func waitBuffer(n *nvimtest.Nvim, path, mode string, lines ...string) {
	n.T.Helper()
	var got []string
	var now string
	n.WaitFor(mode+" mode and "+strings.Join(lines, "|"), func() bool {
		got = bufferLines(n, path)
		n.LuaResult(&now, `return vim.api.nvim_get_mode().mode`)
		return now == mode && strings.Join(got, "\n") == strings.Join(lines, "\n")
	}, func() string { return now + ": " + strings.Join(got, "|") })
}

func focusFile(n *nvimtest.Nvim, path string) {
	n.Lua(`for _, w in ipairs(vim.api.nvim_list_wins()) do if vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(w)) == ... then vim.api.nvim_set_current_win(w) end end`, path)
}

// The user is typing a line in main.go (Insert mode, "g." half-typed)
// when the model's edit_file adds a line above it. The edit waits for
// the user to leave Insert mode (they are told), so the half-typed line
// never reaches the disk; it then lands after the user's insert, as an
// undo step of its own, and is saved with the line the user finished:
// after <Esc>, the first `u` undoes exactly the model's edit, the second
// the user's line.
func TestModelEditWaitsWhileTheUserTypesInTheFile(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := startShell(t, bin)
		path := filepath.Join(n.Dir, "main.go")
		original := []string{"package main", "", `import "fmt"`, "", "func main() {", `	fmt.Println("hi")`, "}"}
		require.NoError(t, os.WriteFile(path, []byte(strings.Join(original, "\n")+"\n"), 0o644))
		n.Lua(`require("magenta.ui").open_file(...)`, path)

		n.FocusRole("input")
		n.Type("document main")
		n.Keys("<CR>")
		call := fake.Next(t)

		// The user types in main.go meanwhile: a new line after line 6.
		focusFile(n, path)
		n.Lua(`vim.bo.expandtab = false; vim.bo.autoindent = true; vim.bo.indentexpr = ""; vim.api.nvim_win_set_cursor(0, {6, 0})`)
		typeAsUser(n, "og.")
		typing := append(append([]string{}, original[:6]...), "\tg.", "}")
		waitBuffer(n, path, "i", typing...)

		call.ToolUse("tu_e", "edit_file", map[string]any{"path": "main.go", "old_string": "func main() {", "new_string": "// main says hi.\nfunc main() {"})
		call.Stop(provider.StopToolUse)
		n.WaitFor("the edit to wait for the user", func() bool {
			return strings.Contains(n.Messages(), "magenta: an edit of main.go waits until you leave Insert mode")
		}, func() string { return strings.Join(bufferLines(n, path), "|") })
		disk, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, strings.Join(original, "\n")+"\n", string(disk), "nothing saved while the user types")
		waitBuffer(n, path, "i", typing...)

		typeAsUser(n, "Println()<Esc>")
		next := fake.Next(t)
		res, isErr := lastResult(t, next)
		require.False(t, isErr, res)
		next.Reply("documented")
		n.WaitForText("display", "documented")

		finished := append(append([]string{}, original[:6]...), "\tg.Println()", "}")
		edited := append(append(append([]string{}, original[:4]...), "// main says hi."), finished[4:]...)
		disk, err = os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, strings.Join(edited, "\n")+"\n", string(disk), "the edit, saved with the user's finished line")
		assert.NotContains(t, strings.Split(string(disk), "\n"), "\tg.", "never the half-typed line")
		waitBuffer(n, path, "n", edited...)

		focusFile(n, path)
		typeAsUser(n, "u")
		waitBuffer(n, path, "n", finished...)
		typeAsUser(n, "u")
		waitBuffer(n, path, "n", original...)
	})
}
