package host_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/goldentest"
	"github.com/magenta-nvim/magenta/pkg/inline"
	"github.com/magenta-nvim/magenta/pkg/nvimtest"
	"github.com/magenta-nvim/magenta/pkg/provider"
)

const inlineDisk = "package main\n\nfunc a() int {\n\treturn 1\n}\n"

// unsaved is the buffer's text after an edit that was not written.
var unsaved = []string{"package main", "", "// unsaved", "func a() int {", "\treturn 1", "}", "// tail"}

// openModified opens name (written with inlineDisk) in a window and changes
// it without saving; it returns the buffer.
func openModified(t *testing.T, n *nvimtest.Nvim, name string) int {
	t.Helper()
	writeFile(t, filepath.Join(n.Dir, name), inlineDisk)
	var buf int
	n.LuaResult(&buf, `
		vim.cmd("topleft split " .. ...)
		vim.bo.filetype = "go"
		vim.api.nvim_buf_set_lines(0, 0, -1, false, `+luaList(unsaved)+`)
		return vim.api.nvim_get_current_buf()`, name)
	return buf
}

func luaList(lines []string) string {
	quoted := make([]string, len(lines))
	for i, l := range lines {
		quoted[i] = `"` + strings.ReplaceAll(l, "\t", `\t`) + `"`
	}
	return "{" + strings.Join(quoted, ", ") + "}"
}

// submitPrompt types instruction into the open inline-edit prompt and
// presses <CR>.
func submitPrompt(t *testing.T, n *nvimtest.Nvim, instruction string) {
	t.Helper()
	var float bool
	n.LuaResult(&float, `return vim.api.nvim_win_get_config(0).relative ~= ""`)
	require.True(t, float, "the prompt is a floating window")
	n.Lua(`vim.api.nvim_buf_set_lines(0, 0, -1, false, { ... })`, instruction)
	n.Keys("<CR>")
}

func inlineState(n *nvimtest.Nvim, buf int) string {
	var s string
	n.LuaResult(&s, `return require("magenta.inline").state(...) or ""`, buf)
	return s
}

func waitInline(t *testing.T, n *nvimtest.Nvim, buf int, want string) {
	t.Helper()
	n.WaitFor("inline edit "+want, func() bool { return inlineState(n, buf) == want },
		func() string { return "state " + inlineState(n, buf) + "; messages: " + n.Messages() })
}

// proposal dumps buf's lines with the inline edit's marks: removed lines
// with their highlight, added lines as the virtual lines they are.
func proposal(n *nvimtest.Nvim, buf int) string {
	var out string
	n.LuaResult(&out, `
		local buf = ...
		local ns = vim.api.nvim_create_namespace("magenta_inline")
		local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
		local marks = vim.api.nvim_buf_get_extmarks(buf, ns, 0, -1, { details = true })
		local out = {}
		for row, text in ipairs(lines) do
			local above, below, tags = {}, {}, {}
			for _, m in ipairs(marks) do
				local d = m[4]
				if m[2] == row - 1 then
					if d.hl_group then tags[#tags + 1] = "[" .. d.hl_group .. "]" end
					for _, chunk in ipairs(d.virt_text or {}) do tags[#tags + 1] = "<" .. chunk[1] .. ">" end
					for _, vl in ipairs(d.virt_lines or {}) do
						local l = "+ " .. vl[1][1] .. "  [" .. vl[1][2] .. "]"
						if d.virt_lines_above then above[#above + 1] = l else below[#below + 1] = l end
					end
				end
			end
			vim.list_extend(out, above)
			out[#out + 1] = "  " .. text .. (#tags > 0 and ("  " .. table.concat(tags, " ")) or "")
			vim.list_extend(out, below)
		end
		return table.concat(out, "\n") .. "\n"`, buf)
	return out
}

// The visual keymap asks for an edit of the selected lines of a modified
// buffer; the request carries the unsaved text; the proposal is shown
// as a diff without touching the buffer; a accepts in one undo step.
func TestInlineEditAccepted(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := start(t, bin)
		buf := openModified(t, n, "f.go")
		n.Keys(`4GVj\mi`)
		submitPrompt(t, n, "return two")

		call := fake.Next(t)
		req := call.Request
		assert.Equal(t, inline.SystemPrompt, req.System)
		require.Len(t, req.Tools, 1)
		assert.Equal(t, inline.ToolName, req.Tools[0].Name)
		assert.Equal(t, "File: f.go (filetype go)\nSelected lines: 4-5\n\n"+
			"Before the selection:\n```\npackage main\n\n// unsaved\n```\n\n"+
			"The selection:\n```\nfunc a() int {\n\treturn 1\n```\n\n"+
			"After the selection:\n```\n}\n// tail\n```\n\n"+
			"Instruction: return two", call.LastUserText())
		call.ToolUse("r1", inline.ToolName, map[string]string{"text": "func a() int {\n\t// two\n\treturn 2\n"})
		// The replacement shows below the selection as it streams.
		n.WaitFor("the streamed preview", func() bool {
			return strings.Contains(proposal(n, buf), "  \treturn 1\n+ func a() int {  [MagentaInlineAdded]\n+ \t// two  [MagentaInlineAdded]\n")
		}, func() string { return proposal(n, buf) })
		assert.Equal(t, "running", inlineState(n, buf))
		call.Stop(provider.StopToolUse)

		waitInline(t, n, buf, "proposed")
		assert.Equal(t, unsaved, n.Lines(buf), "the buffer is untouched until accepted")
		goldentest.Assert(t, "testdata/inline_proposal.golden", proposal(n, buf))

		n.Keys("a")
		want := []string{"package main", "", "// unsaved", "func a() int {", "\t// two", "\treturn 2", "}", "// tail"}
		assert.Equal(t, want, n.Lines(buf))
		assert.Equal(t, "", inlineState(n, buf))
		assert.Equal(t, "  package main\n  \n  // unsaved\n  func a() int {\n  \t// two\n  \treturn 2\n  }\n  // tail\n", proposal(n, buf), "no marks are left")
		var mapped string
		n.LuaResult(&mapped, `return vim.fn.maparg("a", "n")`)
		assert.Equal(t, "", mapped, "the buffer-local keys are gone")
		disk, err := os.ReadFile(filepath.Join(n.Dir, "f.go"))
		require.NoError(t, err)
		assert.Equal(t, inlineDisk, string(disk), "accepting does not save")

		n.Keys("u")
		assert.Equal(t, unsaved, n.Lines(buf), "one undo restores the selection")
	})
}

// A rejected proposal (asked through the range command) leaves the
// modified buffer as it was.
func TestInlineEditRejected(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := start(t, bin)
		buf := openModified(t, n, "f.go")
		n.Command(`nnoremap <buffer> d :echo "mine"<CR>`)
		n.Command("5Magenta inline-edit")
		submitPrompt(t, n, "double it")
		call := fake.Next(t)
		assert.Contains(t, call.LastUserText(), "Selected lines: 5-5\n")
		call.ToolUse("r1", inline.ToolName, map[string]string{"text": "\treturn 2\n"})
		call.Stop(provider.StopToolUse)
		waitInline(t, n, buf, "proposed")
		assert.Contains(t, proposal(n, buf), "  \treturn 1  <magenta: a accepts, d rejects> [MagentaInlineRemoved]\n+ \treturn 2  [MagentaInlineAdded]\n")

		n.Keys("d")
		assert.Equal(t, unsaved, n.Lines(buf))
		var modified bool
		n.LuaResult(&modified, `return vim.bo[...].modified`, buf)
		assert.True(t, modified, "the unsaved changes are still there")
		assert.NotContains(t, proposal(n, buf), "[", "no marks are left")
		var mapped string
		n.LuaResult(&mapped, `return vim.fn.maparg("d", "n")`)
		assert.Equal(t, `:echo "mine"<CR>`, mapped, "the buffer's own map is back")

		// Selected lines changed after the proposal: accepting changes nothing.
		n.Command("5Magenta inline-edit")
		submitPrompt(t, n, "again")
		call = fake.Next(t)
		call.ToolUse("r2", inline.ToolName, map[string]string{"text": "\treturn 3\n"})
		call.Stop(provider.StopToolUse)
		waitInline(t, n, buf, "proposed")
		n.Lua(`vim.api.nvim_buf_set_lines(..., 4, 5, false, { "\treturn 9" })`, buf)
		err := n.V.Command(`lua require("magenta.inline").accept()`)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "the selected lines changed since the edit was asked for; nothing was changed")
		changed := append([]string(nil), unsaved...)
		changed[4] = "\treturn 9"
		assert.Equal(t, changed, n.Lines(buf))
		assert.Equal(t, "", inlineState(n, buf))
	})
}

// Two edits run at once in two buffers; :Magenta abort in one stops its
// request and leaves the other running; a provider error is shown and
// changes nothing.
func TestInlineEditAbortAndErrors(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := start(t, bin)
		bufA := openModified(t, n, "a.go")
		n.Command("4,5Magenta inline-edit")
		submitPrompt(t, n, "edit a")
		callA := fake.Next(t)
		bufB := openModified(t, n, "b.go")
		n.Command("4,5Magenta inline-edit")
		submitPrompt(t, n, "edit b")
		callB := fake.Next(t)
		assert.Contains(t, callA.LastUserText(), "File: a.go")
		assert.Contains(t, callB.LastUserText(), "File: b.go")
		assert.Equal(t, "running", inlineState(n, bufA))
		assert.Equal(t, "running", inlineState(n, bufB))

		n.Lua(`vim.fn.win_gotoid(vim.fn.win_findbuf(...)[1])`, bufA)
		n.Command("Magenta abort")
		select {
		case <-callA.Ended():
		case <-time.After(30 * time.Second):
			t.Fatal("the aborted request was not cancelled")
		}
		assert.Equal(t, "", inlineState(n, bufA))
		assert.Equal(t, unsaved, n.Lines(bufA))
		assert.NotContains(t, proposal(n, bufA), "<", "the running hint is gone")
		assert.Equal(t, "running", inlineState(n, bufB), "the other edit goes on")

		callB.Fail(errors.New("401 bad key"))
		n.WaitFor("the error shown", func() bool { return strings.Contains(n.Messages(), "inline edit failed") },
			func() string { return n.Messages() })
		assert.Equal(t, "", inlineState(n, bufB))
		assert.Equal(t, unsaved, n.Lines(bufB))

		// <Esc> in the prompt cancels: nothing is asked.
		n.Lua(`vim.fn.win_gotoid(vim.fn.win_findbuf(...)[1])`, bufA)
		n.Command("4Magenta inline-edit")
		n.Keys("<Esc>")
		var float bool
		n.LuaResult(&float, `return vim.api.nvim_win_get_config(0).relative ~= ""`)
		assert.False(t, float, "the prompt closed")
		assert.Equal(t, "", inlineState(n, bufA))

		// Wiping a buffer whose edit runs stops its request.
		n.Command("4Magenta inline-edit")
		submitPrompt(t, n, "edit a again")
		callWiped := fake.Next(t)
		n.Lua(`vim.api.nvim_buf_delete(..., { force = true })`, bufA)
		select {
		case <-callWiped.Ended():
		case <-time.After(30 * time.Second):
			t.Fatal("the request of a wiped buffer was not cancelled")
		}

		err := n.V.Command("Magenta inline-edit")
		require.Error(t, err)
		assert.Contains(t, err.Error(), "inline-edit needs a selection")
		n.Lua(`vim.cmd("enew")`)
		err = n.V.Command("1Magenta inline-edit")
		require.Error(t, err)
		assert.Contains(t, err.Error(), "file buffers only")
	})
}
