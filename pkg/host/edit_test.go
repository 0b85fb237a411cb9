package host_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/nvimtest"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
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

// changeOnDisk rewrites path behind the editor's back (a formatter, `git
// checkout`, an approved `sed -i`), with a modification time clearly
// after the one Neovim read.
func changeOnDisk(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	later := time.Now().Add(5 * time.Second)
	require.NoError(t, os.Chtimes(path, later, later))
}

// toolResults returns the tool results in the request's last message by
// tool-use id.
func toolResults(c *providertest.Call) map[string]provider.Block {
	msgs := c.Request.Messages
	out := map[string]provider.Block{}
	for _, b := range msgs[len(msgs)-1].Content {
		if b.Kind == provider.BlockToolResult {
			out[b.ToolUseID] = b
		}
	}
	return out
}

// askEdits sends a message and answers it with one reply calling
// edit_file once per change (old → new), all at once as a model does; it
// returns the next request, which carries the results.
func askEdits(t *testing.T, n *nvimtest.Nvim, fake *providertest.Fake, path string, changes ...[2]string) *providertest.Call {
	n.FocusRole("input")
	n.Type("edit it")
	n.Keys("<CR>")
	call := fake.Next(t)
	for i, c := range changes {
		call.ToolUse(fmt.Sprintf("tu_%d", i), "edit_file", map[string]any{"path": path, "old_string": c[0], "new_string": c[1]})
	}
	call.Stop(provider.StopToolUse)
	return fake.Next(t)
}

func bufferLines(n *nvimtest.Nvim, path string) []string {
	var lines []string
	n.LuaResult(&lines, `return vim.api.nvim_buf_get_lines(vim.fn.bufnr(...), 0, -1, false)`, path)
	return lines
}

// All tool calls of one reply start at once: two edit_file calls on a
// file open in a buffer both land, in the buffer and on disk.
func TestParallelEditsOfAnOpenFileBothLand(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := startShell(t, bin)
		path := filepath.Join(n.Dir, "greek.txt")
		require.NoError(t, os.WriteFile(path, []byte("alpha\nbeta\n"), 0o644))
		n.Lua(`require("magenta.ui").open_file(...)`, path)
		next := askEdits(t, n, fake, "greek.txt", [2]string{"alpha", "ALPHA"}, [2]string{"beta", "BETA"})
		results := toolResults(next)
		require.Len(t, results, 2)
		for id, r := range results {
			assert.False(t, r.IsError, "%s: %s", id, r.Result[0].Text)
		}
		next.Reply("done")
		n.WaitForText("display", "done")
		disk, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, "ALPHA\nBETA\n", string(disk), "both edits saved")
		assert.Equal(t, []string{"ALPHA", "BETA"}, bufferLines(n, path))
	})
}

// A file open and unmodified in a buffer changes on disk: get_file shows
// the disk's text and edit_file keeps the disk's change. With unsaved
// changes in the buffer too, the edit is refused and both sides are kept.
func TestStaleBufferIsNotWrittenOverTheDisk(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := startShell(t, bin)
		path := filepath.Join(n.Dir, "main.go")
		require.NoError(t, os.WriteFile(path, []byte("alpha\nbeta\n"), 0o644))
		n.Lua(`require("magenta.ui").open_file(...)`, path)
		changeOnDisk(t, path, "alpha\nbeta\nformatted\n")

		n.FocusRole("input")
		n.Type("read it")
		n.Keys("<CR>")
		call := fake.Next(t)
		call.ToolUse("tu_r", "get_file", map[string]any{"path": "main.go"})
		call.Stop(provider.StopToolUse)
		next := fake.Next(t)
		res, isErr := lastResult(t, next)
		require.False(t, isErr, res)
		assert.Equal(t, "1\talpha\n2\tbeta\n3\tformatted", res, "the disk's text, not the stale buffer's")
		next.Reply("read")
		n.WaitForText("display", "read")

		changeOnDisk(t, path, "alpha\nbeta\nformatted\ncheckout\n")
		next = askEdits(t, n, fake, "main.go", [2]string{"alpha", "ALPHA"})
		res, isErr = lastResult(t, next)
		require.False(t, isErr, res)
		next.Reply("edited")
		n.WaitForText("display", "edited")
		disk, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, "ALPHA\nbeta\nformatted\ncheckout\n", string(disk), "the disk's change survived")

		// Now the user has unsaved changes and the disk changes too.
		n.Lua(`vim.api.nvim_buf_set_lines(vim.fn.bufnr(...), 1, 2, false, {"user"})`, path)
		changeOnDisk(t, path, "ALPHA\nbeta\nformatted\nsed -i\n")
		next = askEdits(t, n, fake, "main.go", [2]string{"ALPHA", "alpha"})
		res, isErr = lastResult(t, next)
		assert.True(t, isErr)
		assert.Contains(t, res, "main.go was not changed: the user has unsaved changes to it in the editor and the file also changed on disk")
		next.Reply("refused")
		n.WaitForText("display", "refused")
		disk, err = os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, "ALPHA\nbeta\nformatted\nsed -i\n", string(disk), "the disk's side")
		assert.Equal(t, []string{"ALPHA", "user", "formatted", "checkout"}, bufferLines(n, path), "the user's side")
	})
}

// A declined write says the file was not written (not "read").
func TestDeclinedWriteSaysNotWritten(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := startShell(t, bin)
		n.FocusRole("input")
		n.Type("write the secret")
		n.Keys("<CR>")
		call := fake.Next(t)
		call.ToolUse("tu_w", "write_file", map[string]any{"path": ".env", "content": "TOKEN=y\n"})
		call.Stop(provider.StopToolUse)
		n.WaitForText("display", "> NO")
		n.FocusRole("display")
		n.CursorTo("> NO")
		n.Keys("<CR>")
		next := fake.Next(t)
		res, isErr := lastResult(t, next)
		assert.True(t, isErr)
		assert.Equal(t, filepath.Join(n.Dir, ".env")+" was not written: the user declined.", res)
		_, err := os.Stat(filepath.Join(n.Dir, ".env"))
		assert.True(t, os.IsNotExist(err), "nothing written")
		next.Reply("ok")
	})
}
