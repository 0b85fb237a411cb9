package host_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/nvimtest"
)

// What a newcomer used to avante.nvim or codecompanion.nvim tries first in
// the sidebar. Keys are typed with nvim_input (asynchronous, as from a
// terminal), so a key that starts insert mode stays in it; conditions are
// then waited for.

// input types keys as a user would, through nvim_input.
func input(n *nvimtest.Nvim, keys string) {
	n.T.Helper()
	_, err := n.V.Input(keys)
	require.NoError(n.T, err)
}

// waitMode waits until Neovim's mode is mode ("n", "i") and nothing is
// pending.
func waitMode(n *nvimtest.Nvim, mode string) {
	n.T.Helper()
	var got string
	n.WaitFor("mode "+mode, func() bool {
		m, err := n.V.Mode()
		if err != nil {
			return false
		}
		got = m.Mode
		return m.Mode == mode && !m.Blocking
	}, func() string { return got })
}

// waitIdle waits until Neovim waits for no more keys of a command: a
// key the plugin does not map may start one (q waits for a register),
// and while it waits Neovim answers only "fast" calls such as this
// one. Past the deadline it types <Esc> to end the command, so the test
// can fail instead of hanging.
func waitIdle(n *nvimtest.Nvim, after string) {
	n.T.Helper()
	deadline := time.Now().Add(nvimtest.Wait)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		m, err := n.V.Mode()
		if err == nil && !m.Blocking {
			return
		}
		if time.Now().After(deadline) {
			_, _ = n.V.Input("<Esc><Esc>")
			n.T.Fatalf("after %s Neovim still waits for keys (mode %+v, %v)", after, m, err)
		}
		<-tick.C
	}
}

// currentRole is b:magenta_role of the current buffer ("" when none).
func currentRole(n *nvimtest.Nvim) string {
	n.T.Helper()
	var role string
	n.LuaResult(&role, `local ok, r = pcall(vim.api.nvim_buf_get_var, 0, "magenta_role"); return ok and r or ""`)
	return role
}

// wipe deletes the sidebar buffer of role, so the next toggle makes it
// again with the keys setup() gave since.
func wipe(n *nvimtest.Nvim, role string) {
	n.T.Helper()
	if buf := n.Buffer(role); buf != 0 {
		n.Lua(`vim.api.nvim_buf_delete(..., { force = true })`, buf)
	}
}

// hasRow reports whether the key help has the line for lhs doing what.
func hasRow(help, lhs, what string) bool {
	for _, l := range strings.Split(help, "\n") {
		f := strings.Fields(l)
		if len(f) > 0 && f[0] == lhs && strings.Join(f[1:], " ") == what {
			return true
		}
	}
	return false
}

func sidebarOpen(n *nvimtest.Nvim) bool {
	n.T.Helper()
	var open bool
	n.LuaResult(&open, `return require('magenta.sidebar').is_open()`)
	return open
}

// <C-s> sends from insert mode (and normal mode) and leaves you typing;
// <CR> still sends in normal mode; send_insert is configurable.
func TestSendFromInsertMode(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := start(t, bin)
		n.Command("Magenta toggle")
		n.WaitForText("display", "# New thread")
		n.FocusRole("input")
		input(n, "ifirst question<C-s>")
		call := fake.Next(t)
		assert.Equal(t, "first question", call.LastUserText())
		waitMode(n, "i")
		n.WaitFor("the input cleared", func() bool { return n.Text(n.Buffer("input")) == "" }, func() string { return n.Text(n.Buffer("input")) })
		call.Reply("one")
		n.WaitForText("display", "one")

		input(n, "second<Esc>")
		waitMode(n, "n")
		input(n, "<C-s>")
		call = fake.Next(t)
		assert.Equal(t, "second", call.LastUserText(), "<C-s> sends in normal mode too")
		call.Reply("two")
		n.WaitForText("display", "two")

		n.Type("third")
		n.Keys("<CR>")
		call = fake.Next(t)
		assert.Equal(t, "third", call.LastUserText(), "<CR> in normal mode still sends")
		call.Reply("three")

		// A new input buffer takes the configured key.
		n.Command("Magenta toggle")
		wipe(n, "input")
		n.Setup(`{ keymaps = { input = { send_insert = "<C-g>" } } }`)
		n.Command("Magenta toggle")
		n.FocusRole("input")
		// Buffer-local maps only: Neovim 0.11+ maps <C-s> in insert mode
		// globally (signature help).
		var maps []bool
		n.LuaResult(&maps, `
			local function local_map(lhs, mode) return vim.fn.maparg(lhs, mode, false, true).buffer == 1 end
			return { local_map("<C-g>", "i"), local_map("<C-s>", "i"), local_map("<CR>", "n") }`)
		assert.True(t, maps[0], "the configured key is mapped")
		assert.False(t, maps[1], "the default is not")
		assert.True(t, maps[2], "send keeps its default")
	})
}

// q closes the sidebar from either buffer; false disables it.
func TestQClosesTheSidebar(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, _ := start(t, bin)
		for _, role := range []string{"display", "input"} {
			n.Command("Magenta toggle")
			n.WaitForText("display", "# New thread")
			n.FocusRole(role)
			input(n, "q")
			waitIdle(n, "q in the "+role)
			n.WaitFor("the sidebar closed by q in the "+role, func() bool { return !sidebarOpen(n) }, n.Messages)
		}
		wipe(n, "input")
		wipe(n, "display")
		n.Setup(`{ keymaps = { sidebar = { close = false } } }`)
		n.Command("Magenta toggle")
		n.FocusRole("display")
		var lhs string
		n.LuaResult(&lhs, `return vim.fn.maparg("q", "n")`)
		assert.Empty(t, lhs, "close = false maps nothing")
	})
}

// ? shows the keys as configured, one line each, and the next key only
// closes it.
func TestHelpShowsTheConfiguredKeys(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, _ := start(t, bin)
		n.Setup(`{ keymaps = { display = { approve = "y", terminal = false }, input = { send = "<C-j>" }, global = { abort = "<leader>mx" } } }`)
		n.Command("Magenta toggle")
		n.WaitForText("display", "# New thread")
		for _, role := range []string{"display", "input"} {
			n.FocusRole(role)
			input(n, "?")
			var help string
			n.WaitFor("the key help", func() bool {
				buf := n.Buffer("help")
				if buf == 0 {
					return false
				}
				help = n.Text(buf)
				return true
			}, n.Messages)
			assert.True(t, hasRow(help, "y", "approve the request under the cursor"), help)
			assert.True(t, hasRow(help, "<C-j>", "send the message (normal mode, input)"), help)
			assert.True(t, hasRow(help, "<leader>mx", "abort the current turn"), help)
			assert.True(t, hasRow(help, "q", "close the sidebar"), help)
			assert.Contains(t, help, "  i a o I O  ", "a is free (approve is y), A is always's")
			assert.NotContains(t, help, "terminal", "a disabled key is not listed")
			assert.False(t, hasRow(help, "a", "approve the request under the cursor"), "the default approve key is not listed")
			var floating bool
			n.LuaResult(&floating, `
				for _, w in ipairs(vim.api.nvim_list_wins()) do
					if vim.api.nvim_win_get_config(w).relative ~= "" then return true end
				end
				return false`)
			assert.True(t, floating, "the help is a float")

			key := map[string]string{"display": "q", "input": "<Esc>"}[role]
			input(n, key)
			n.WaitFor("the help closed", func() bool { return n.Buffer("help") == 0 }, n.Messages)
			waitMode(n, "n")
			assert.True(t, sidebarOpen(n), "the key that closed the help did nothing else")
			assert.Equal(t, role, currentRole(n))
		}
		n.FocusRole("display")
		input(n, "?")
		n.WaitFor("the key help", func() bool { return n.Buffer("help") != 0 }, n.Messages)
		input(n, "G")
		n.WaitFor("the help closed by any key", func() bool { return n.Buffer("help") == 0 }, n.Messages)
	})
}

// :Magenta alone toggles the sidebar (it gave E471); an unknown
// subcommand lists the valid ones.
func TestMagentaWithoutArgumentsToggles(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, _ := start(t, bin)
		n.Command("Magenta")
		n.WaitForText("display", "# New thread")
		assert.True(t, sidebarOpen(n))
		n.Command("Magenta")
		assert.False(t, sidebarOpen(n))
		err := n.V.Command("Magenta tgole")
		require.Error(t, err)
		assert.Contains(t, err.Error(), `unknown subcommand "tgole"; use one of: toggle, send, abort,`)
	})
}

// i, a, o, I, A, O in the display go to the input in insert mode at the
// end of what is typed there (they gave E21); a and A still answer an
// approval, and while one waits they stay approval keys.
func TestInsertKeysInTheDisplayGoToTheInput(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := startShell(t, bin)
		n.Type("draft line one")
		for _, key := range []string{"i", "a", "o", "I", "A", "O"} {
			n.FocusRole("display")
			input(n, key)
			waitMode(n, "i")
			assert.Equal(t, "input", currentRole(n), key)
			var col int
			n.LuaResult(&col, `return vim.api.nvim_win_get_cursor(0)[2]`)
			assert.Equal(t, len("draft line one"), col, "%s: the cursor is at the end", key)
			input(n, "<Esc>")
			waitMode(n, "n")
		}
		assert.NotContains(t, n.Messages(), "E21")
		assert.Equal(t, "draft line one", n.Text(n.Buffer("input")), "nothing was typed")

		// An approval waits: a on the request approves it.
		n.Lua(`vim.api.nvim_buf_set_lines(..., 0, -1, false, {})`, n.Buffer("input"))
		askBash(t, n, fake, "touch approved-by-a", "tu_a")
		n.WaitForText("display", "> YES")
		n.FocusRole("display")
		n.CursorTo("# ") // away from the request: a stays an approval key
		input(n, "a")
		waitMessage(n, "the cursor is on no approval, so nothing was answered")
		assert.Equal(t, "display", currentRole(n))
		n.CursorTo("┃ touch approved-by-a")
		input(n, "a")
		next := fake.Next(t)
		res, isErr := lastResult(t, next)
		assert.False(t, isErr, res)
		assert.FileExists(t, filepath.Join(n.Dir, "approved-by-a"))
		next.Reply("done")
		n.WaitForText("display", "done")
		waitMode(n, "n")
		assert.Equal(t, "display", currentRole(n), "a answered; it did not go to the input")

		// Nothing waits any more: a goes to the input again.
		input(n, "a")
		waitMode(n, "i")
		assert.Equal(t, "input", currentRole(n))
	})
}

// <leader>mb says what it added and to which thread, that a file was
// already there, and why a buffer that is not a file adds nothing.
func TestAddBufferSaysWhatItDid(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, _ := start(t, bin)
		path := filepath.Join(n.Dir, "notes.txt")
		require.NoError(t, os.WriteFile(path, []byte("hello\n"), 0o644))
		n.Command("edit " + path)
		n.Keys(`\mb`)
		waitMessage(n, `magenta: added notes.txt to the context files of thread "New thread" (`)
		n.Keys(`\mb`)
		waitMessage(n, `magenta: notes.txt is already in the context files of thread "New thread" (`)
		n.Command("enew")
		n.Keys(`\mb`)
		waitMessage(n, "magenta: the current buffer is not a file, nothing was added: it has no name")
		n.Command("setlocal buftype=nofile")
		n.Keys(`\mb`)
		waitMessage(n, `magenta: the current buffer is not a file, nothing was added: it is a "nofile" buffer`)
	})
}

// "@" alone starts completion: it is a keyword character in the input,
// so cmp-omni's keyword pattern matches it, and the omnifunc (asked the
// way cmp-omni asks: findstart, then the base from that column) still
// finds the mention's start.
func TestAtStartsMentionCompletion(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, _ := start(t, bin)
		n.Command("Magenta toggle")
		n.WaitForText("display", "# New thread")
		n.FocusRole("input")
		var isk string
		n.LuaResult(&isk, `return vim.bo.iskeyword`)
		assert.Contains(t, strings.Split(isk, ","), "@-@")

		// A minimal cmp-omni: complete when the text before the cursor
		// ends in a keyword; findstart, then the base from that column.
		n.Lua(`_G.complete_like_cmp_omni = function()
			local line = vim.api.nvim_get_current_line()
			local before = line:sub(1, vim.api.nvim_win_get_cursor(0)[2])
			local r = { keyword = vim.fn.matchstr(before, [[\k\+$]]), start = -9, words = {} }
			local omni = vim.bo.omnifunc
			r.start = vim.fn[omni](1, "")
			if r.start >= 0 then
				for _, item in ipairs(vim.fn[omni](0, before:sub(r.start + 1))) do
					r.words[#r.words + 1] = type(item) == "table" and item.word or item
				end
			end
			_G.completed = r
		end`)
		type result struct {
			Keyword string   `msgpack:"keyword"`
			Start   int      `msgpack:"start"`
			Words   []string `msgpack:"words"`
		}
		complete := func(text string) result {
			n.Lua(`vim.api.nvim_buf_set_lines(0, 0, -1, false, {})`)
			n.Keys("i" + text + "<Cmd>lua complete_like_cmp_omni()<CR><Esc>")
			var r result
			n.LuaResult(&r, `return _G.completed`)
			return r
		}
		r := complete("look at @")
		assert.Equal(t, "@", r.Keyword, "@ alone is a keyword: completion starts")
		assert.Equal(t, len("look at "), r.Start)
		assert.Contains(t, r.Words, "@file:")
		assert.Contains(t, r.Words, "@diag")

		r = complete("@fi")
		assert.Equal(t, "@fi", r.Keyword)
		assert.Equal(t, 0, r.Start)
		assert.Equal(t, []string{"@file:"}, r.Words)

		r = complete("mail me@example")
		assert.Equal(t, -3, r.Start, "an @ inside a word starts no mention")
	})
}
