package host_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/nvimtest"
	"github.com/magenta-nvim/magenta/pkg/provider"
)

// A display event naming a buffer the sidebar did not make (here a file
// buffer) is refused with an error; the file keeps its text and the chat
// goes on in the real display buffer.
func TestDisplayEventRefusesOtherBuffers(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := start(t, bin)
		n.Command("Magenta toggle")
		n.Type("hello")
		n.Keys("<CR>")
		call := fake.Next(t)
		call.Text("first")
		n.WaitForText("display", "first")

		var file int
		n.LuaResult(&file, `
			vim.cmd("edit " .. vim.fn.fnameescape(...))
			vim.api.nvim_buf_set_lines(0, 0, -1, false, { "package main", "", "func main() {}" })
			return vim.api.nvim_get_current_buf()`, filepath.Join(n.Dir, "main.go"))
		want := n.Lines(file)
		n.Lua(`require('magenta.host').notify("display", { buf = ... })`, file)
		n.WaitFor("the refusal to be reported", func() bool {
			return strings.Contains(n.Messages(), "is not a magenta display buffer")
		}, func() string { return "" })

		call.Text(" second")
		call.Stop(provider.StopEndTurn)
		n.WaitForText("display", "first second")
		assert.Equal(t, want, n.Lines(file), "the file buffer is untouched")

		// The Lua side refuses too, whoever calls it.
		var msg string
		n.LuaResult(&msg, `
			local ok, err = pcall(require('magenta.ui').apply, ..., 0, -1, { "chat" }, {})
			return ok and "" or tostring(err)`, file)
		assert.Contains(t, msg, "is not a magenta display buffer")
		require.Equal(t, want, n.Lines(file))
	})
}
