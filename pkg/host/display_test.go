package host_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/magenta-nvim/magenta/pkg/goldentest"
	"github.com/magenta-nvim/magenta/pkg/nvimtest"
	"github.com/magenta-nvim/magenta/pkg/provider"
)

// bufferDump returns the display buffer's lines and the highlights Neovim
// holds for them (from the extmarks), as the user would see them.
func bufferDump(n *nvimtest.Nvim) string {
	var out string
	n.LuaResult(&out, `
		local buf = ...
		local ns = require('magenta.ui').ns
		local parts = {}
		for i, l in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
			parts[#parts+1] = string.format("%3d| %s", i - 1, l)
		end
		parts[#parts+1] = "-- highlights"
		for _, m in ipairs(vim.api.nvim_buf_get_extmarks(buf, ns, 0, -1, { details = true })) do
			local d = m[4]
			parts[#parts+1] = string.format("%3d %d-%s %s", m[2], m[3], d.end_col and tostring(d.end_col) or "eol", d.hl_group)
		end
		return table.concat(parts, "\n") .. "\n"`, n.Buffer("display"))
	return out
}

func TestDisplayBufferGolden(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := start(t, bin)
		n.Command("Magenta toggle")
		n.Type("Explain\nthis")
		n.Keys("<CR>")
		call := fake.Next(t)
		call.Text("Here is **why**:\n\n1. one\n2. two")
		call.ToolUse("tu_1", "thread_title", map[string]string{"title": "Explanation"})
		call.Stop(provider.StopToolUse)
		fake.Next(t).Reply("Done.")
		n.WaitForText("display", "Done.")
		n.WaitForText("display", "ready")
		n.FocusRole("display")
		n.CursorTo("thread_title")
		n.Keys("=")
		n.WaitForText("display", "result:")
		goldentest.Assert(t, "testdata/display.golden", bufferDump(n))
	})
}

// A window scrolled up stays where the user put it while text streams in;
// a window at the end follows the end.
func TestScrollPositionIsKept(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := start(t, bin)
		n.Command("Magenta toggle")
		n.Type("write")
		n.Keys("<CR>")
		call := fake.Next(t)
		var long []string
		for i := 0; i < 200; i++ {
			long = append(long, fmt.Sprintf("line %d", i))
		}
		call.Text(strings.Join(long, "\n"))
		n.WaitForText("display", "line 199")

		n.FocusRole("display")
		n.Keys("G")
		n.CursorTo("line 20")
		var before [2]int
		n.LuaResult(&before, `return { vim.fn.line("."), vim.fn.line("w0") }`)
		call.Text("\nmore at the end")
		n.WaitForText("display", "more at the end")
		var after [2]int
		n.LuaResult(&after, `return { vim.fn.line("."), vim.fn.line("w0") }`)
		assert.Equal(t, before, after, "cursor and top line stay put")

		n.Keys("G")
		call.Text("\nand even more")
		n.WaitForText("display", "and even more")
		n.WaitFor("the cursor to follow the end", func() bool {
			var cur, last int
			n.LuaResult(&cur, `return vim.fn.line(".")`)
			n.LuaResult(&last, `return vim.fn.line("$")`)
			return cur == last
		}, func() string { return "" })
		call.Stop(provider.StopEndTurn)
	})
}
