package host_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/magenta-nvim/magenta/pkg/nvimtest"
)

// A message the thread could not take (a read-only thread) goes back
// into the input buffer, above what the user typed since (issue 24 item
// 6: the input was cleared and the message lost).
func TestRefusedMessageGoesBackToTheInput(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, _ := start(t, bin)
		n.Command("Magenta toggle")
		n.WaitForText("display", "# New thread")
		n.Lua(`require("magenta.sidebar").restore_input("first line\nsecond line")`)
		assert.Equal(t, []string{"first line", "second line"}, n.Lines(n.Buffer("input")))
		n.Lua(`
			local buf = vim.fn.bufnr("")
			for _, b in ipairs(vim.api.nvim_list_bufs()) do
				if vim.b[b].magenta_role == "input" then buf = b end
			end
			vim.api.nvim_buf_set_lines(buf, 0, -1, false, { "typed since" })
			require("magenta.sidebar").restore_input("refused")`)
		assert.Equal(t, []string{"refused", "", "typed since"}, n.Lines(n.Buffer("input")))
	})
}
