package host_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/goldentest"
	"github.com/magenta-nvim/magenta/pkg/nvimtest"
)

// fakeCmp is a stand-in for nvim-cmp: setup.buffer records its calls, and
// in a buffer it was not disabled for it takes <CR> on InsertEnter
// (buffer-local, as cmp's keymap does) to confirm an item.
const fakeCmp = `
local M = { calls = {}, disabled = {}, confirmed = 0 }
M.setup = setmetatable({
  buffer = function(c)
    local buf = vim.api.nvim_get_current_buf()
    M.calls[#M.calls + 1] = { buf = buf, enabled = c.enabled }
    if c.enabled == false then
      M.disabled[buf] = true
    end
  end,
}, { __call = function() end })
vim.api.nvim_create_autocmd("InsertEnter", {
  callback = function(ev)
    if not M.disabled[ev.buf] then
      vim.keymap.set("i", "<CR>", function() M.confirmed = M.confirmed + 1 end, { buffer = ev.buf })
    end
  end,
})
return M
`

// installFakeCmp puts the fake cmp module on 'runtimepath' and loads it,
// as a user's configuration does.
func installFakeCmp(t *testing.T, n *nvimtest.Nvim) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "lua", "cmp"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "lua", "cmp", "init.lua"), []byte(fakeCmp), 0o644))
	n.Lua(`vim.cmd("set rtp+=" .. vim.fn.fnameescape(...)); require("cmp")`, dir)
}

// promptState is what the open inline-edit prompt looks like to a
// completion plugin.
type promptState struct {
	Buf        int    `msgpack:"buf"`
	Filetype   string `msgpack:"filetype"`
	Completion any    `msgpack:"completion"`
	Mode       string `msgpack:"mode"`
	CmpCalls   []struct {
		Buf     int  `msgpack:"buf"`
		Enabled bool `msgpack:"enabled"`
	} `msgpack:"cmp_calls"`
	Confirmed int `msgpack:"confirmed"`
}

func readPrompt(n *nvimtest.Nvim) promptState {
	var s promptState
	n.LuaResult(&s, `
		local buf = vim.api.nvim_get_current_buf()
		local ok, completion = pcall(vim.api.nvim_buf_get_var, buf, "completion")
		if not ok then completion = "unset" end
		local cmp = require("cmp")
		return {
			buf = buf,
			filetype = vim.bo[buf].filetype,
			completion = completion,
			mode = vim.api.nvim_get_mode().mode,
			cmp_calls = cmp.calls,
			confirmed = cmp.confirmed,
		}`)
	return s
}

// With a completion plugin that takes <CR> (nvim-cmp's way), the prompt
// still sends on the first <CR>: it has its own filetype, and completion
// is off in its buffer (cmp's setup.buffer{enabled=false}, blink's
// b:completion = false). inline.completion = true leaves it on.
func TestInlinePromptSendsOnTheFirstEnterDespiteCompletion(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := start(t, bin)
		installFakeCmp(t, n)
		openModified(t, n, "f.go")
		n.Command("4,5Magenta inline-edit")
		var s promptState
		n.WaitFor("the prompt in Insert mode", func() bool { s = readPrompt(n); return s.Mode == "i" },
			func() string { return s.Mode + " " + s.Filetype })
		assert.Equal(t, "magenta-inline", s.Filetype)
		assert.Equal(t, false, s.Completion, "b:completion, blink.cmp's switch")
		require.Len(t, s.CmpCalls, 1, "cmp.setup.buffer")
		assert.Equal(t, s.Buf, s.CmpCalls[0].Buf, "for the prompt's buffer")
		assert.False(t, s.CmpCalls[0].Enabled)

		typeAsUser(n, "return two<CR>")
		call := fake.Next(t)
		assert.Contains(t, call.LastUserText(), "Instruction: return two")
		var confirmed int
		n.LuaResult(&confirmed, `return require("cmp").confirmed`)
		assert.Equal(t, 0, confirmed, "completion never took <CR>")

		// Kept on by the option: nothing is switched off.
		n.Setup(`{ inline = { completion = true } }`)
		buf := openModified(t, n, "g.go")
		n.Command("4Magenta inline-edit")
		n.WaitFor("the prompt in Insert mode", func() bool { s = readPrompt(n); return s.Mode == "i" && s.Buf != buf },
			func() string { return s.Mode + " " + s.Filetype })
		assert.Equal(t, "magenta-inline", s.Filetype)
		assert.Equal(t, "unset", s.Completion)
		assert.Len(t, s.CmpCalls, 1, "no new setup.buffer call")
	})
}

// promptTopBorder draws the open prompt's top border row as the screen
// shows it: the label is the window's title on 0.9+, and before that a
// float of its own drawn over the border. It fails when the label float
// is not exactly on the border.
const promptTopBorder = `
	local prompt = vim.api.nvim_get_current_win()
	local pc = vim.api.nvim_win_get_config(prompt)
	local width = vim.api.nvim_win_get_width(prompt)
	local label, offset, floats = "", 0, 0
	if vim.fn.has("nvim-0.9") == 1 then
		for _, chunk in ipairs(type(pc.title) == "table" and pc.title or { { pc.title or "" } }) do
			label = label .. chunk[1]
		end
	end
	for _, w in ipairs(vim.api.nvim_list_wins()) do
		local c = vim.api.nvim_win_get_config(w)
		if w ~= prompt and c.relative ~= "" then
			floats = floats + 1
			assert(c.relative == "editor" and pc.relative == "editor", "both editor-relative")
			assert(c.focusable == false, "the label is not focusable")
			local row = function(v) return type(v) == "table" and v[false] or v end
			assert(row(c.row) == row(pc.row), "the label is on the border's row")
			offset = row(c.col) - row(pc.col) - 1
			label = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(w), 0, 1, false)[1]
			label = label:sub(1, vim.api.nvim_win_get_width(w))
		end
	end
	local w = vim.fn.strdisplaywidth(label)
	return {
		floats = floats,
		border = "╭" .. string.rep("─", offset) .. label .. string.rep("─", width - offset - w) .. "╮",
	}`

// The inline-edit prompt is labelled on every Neovim: 0.7 and 0.8 have
// no float titles, so the label is a float of its own over the prompt's
// top border, which closes with the prompt.
func TestInlinePromptIsLabelled(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, _ := start(t, bin)
		n.Lua(`vim.o.columns = 100`)
		openModified(t, n, "f.go")
		var titles bool
		n.LuaResult(&titles, `return vim.fn.has("nvim-0.9") == 1`)
		for _, closeWith := range []string{"<Esc>", ":close"} {
			n.Command("4Magenta inline-edit")
			var top struct {
				Floats int    `msgpack:"floats"`
				Border string `msgpack:"border"`
			}
			n.LuaResult(&top, promptTopBorder)
			goldentest.Assert(t, "testdata/inline_prompt_label.golden", top.Border+"\n")
			if titles {
				assert.Equal(t, 0, top.Floats, "0.9+: the window's title")
			} else {
				assert.Equal(t, 1, top.Floats, "before 0.9: one label float")
			}

			if closeWith == "<Esc>" {
				n.Keys("<Esc>")
			} else {
				n.Lua(`vim.api.nvim_win_close(0, true)`)
			}
			n.WaitFor("no float left after "+closeWith, func() bool {
				var floats int
				n.LuaResult(&floats, `local k = 0; for _, w in ipairs(vim.api.nvim_list_wins()) do if vim.api.nvim_win_get_config(w).relative ~= "" then k = k + 1 end end; return k`)
				return floats == 0
			}, func() string { return "" })
		}
	})
}
