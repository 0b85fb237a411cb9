package host_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/memshell"
	"github.com/magenta-nvim/magenta/pkg/chat/view"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/host"
	"github.com/magenta-nvim/magenta/pkg/nvimtest"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
)

// startInteractive opens the sidebar with a scripted shell whose "ls"
// is an interactive command played by term, and makes the model run it
// with interactive set.
func startInteractive(t testing.TB, bin string, term *memshell.Terminal, extraOptions string) (*nvimtest.Nvim, *providertest.Fake) {
	n := nvimtest.Start(t, bin)
	fake := providertest.New()
	n.StartHost(host.Options{
		Version:     "test",
		NewProvider: func(config.Profile) (provider.Provider, error) { return fake, nil },
		Shell:       memshell.New(memshell.Script{Command: "ls", Terminal: term}),
	})
	opts := strings.TrimSpace(testOptions)
	n.Setup(strings.TrimSuffix(opts, "}") + extraOptions + "}")
	n.Command("Magenta toggle")
	n.WaitForText("display", "# New thread")
	n.Type("ask my name")
	n.Keys("<CR>")
	call := fake.Next(t)
	call.ToolUse("tu_1", "bash_command", map[string]any{"command": "ls", "interactive": true, "description": "ask a name"})
	call.Stop(provider.StopToolUse)
	return n, fake
}

func mode(n *nvimtest.Nvim) string {
	var m string
	n.LuaResult(&m, `return vim.api.nvim_get_mode().mode`)
	return m
}

// terminalWindow returns the window showing the terminal buffer, or 0.
func terminalWindow(n *nvimtest.Nvim) int {
	buf := n.Buffer("terminal")
	if buf == 0 {
		return 0
	}
	var win int
	n.LuaResult(&win, `return vim.fn.win_findbuf(...)[1] or 0`, buf)
	return win
}

func TestInteractiveTerminalWindow(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		term := memshell.NewTerminal()
		n, fake := startInteractive(t, bin, term, "")
		term.Output([]byte("hello\r\nEnter your name: "))
		term.SetScreen("hello", "Enter your name:")
		term.SetWaiting(true)
		n.WaitForText("display", "┆ Enter your name:")
		n.WaitForText("display", view.TerminalWaitingHint("t"))

		// t on the block opens the terminal next to the chat, in terminal
		// mode, with the replay of what the command printed.
		n.FocusRole("display")
		n.CursorTo("Enter your name")
		n.Keys("t")
		n.WaitFor("the terminal window", func() bool { return terminalWindow(n) != 0 }, func() string { return "" })
		var role string
		n.LuaResult(&role, `return vim.b.magenta_role`)
		assert.Equal(t, "terminal", role, "the cursor is in the terminal window")
		n.WaitFor("terminal mode", func() bool { return mode(n) == "t" }, func() string { return mode(n) })
		n.WaitForText("terminal", "Enter your name:")
		n.WaitForText("display", view.TerminalOpenNote)
		var rows, cols int
		win := terminalWindow(n)
		n.LuaResult(&rows, `return vim.api.nvim_win_get_height(...)`, win)
		n.LuaResult(&cols, `return vim.api.nvim_win_get_width(...)`, win)
		n.WaitFor("the window's size to reach the PTY", func() bool {
			s := term.Sizes()
			return len(s) > 0 && s[len(s)-1] == [2]int{rows, cols}
		}, func() string { return fmt.Sprint(term.Sizes(), rows, cols) })

		// Typing in terminal mode goes through on_input to Terminal.Write.
		_, err := n.V.Input("Alice<CR>")
		require.NoError(t, err)
		n.WaitFor("the input to reach the terminal", func() bool { return term.Written() == "Alice\r" },
			func() string { return fmt.Sprintf("%q", term.Written()) })
		n.WaitForText("terminal", "Enter your name: Alice") // echoed
		_, err = n.V.Input("<C-c>")
		require.NoError(t, err)
		n.WaitFor("Ctrl-C to reach the terminal", func() bool { return term.Written() == "Alice\r\x03" },
			func() string { return fmt.Sprintf("%q", term.Written()) })

		// t again focuses the open window instead of opening another.
		n.FocusRole("display")
		n.CursorTo("Enter your name")
		n.Keys("t")
		n.WaitFor("the terminal window to be focused", func() bool {
			var cur int
			n.LuaResult(&cur, `return vim.api.nvim_get_current_win()`)
			return cur == win
		}, func() string { return "" })
		var terminals int
		n.LuaResult(&terminals, `return #require('magenta.terminal').ids()`)
		assert.Equal(t, 1, terminals)
		n.WaitFor("terminal mode", func() bool { return mode(n) == "t" }, func() string { return mode(n) })

		// Resizing the window resizes the PTY.
		_, err = n.V.Input(`<C-\><C-n>`)
		require.NoError(t, err)
		n.WaitFor("normal mode", func() bool { return strings.HasPrefix(mode(n), "n") }, func() string { return mode(n) })
		n.Lua(`vim.api.nvim_win_set_height(..., 6)`, win)
		// Neovim 0.7 and 0.8 have no WinResized: a resize is noticed when
		// the cursor moves between windows.
		n.Command("wincmd p")
		n.Command("wincmd p")
		n.WaitFor("the new size to reach the PTY", func() bool {
			s := term.Sizes()
			return len(s) > 0 && s[len(s)-1] == [2]int{6, cols}
		}, func() string { return fmt.Sprint(term.Sizes()) })
		var winResized bool
		n.LuaResult(&winResized, `return vim.fn.exists("##WinResized") == 1`)
		if winResized { // 0.9+: noticed at once
			n.Lua(`vim.api.nvim_win_set_height(..., 5)`, win)
			n.WaitFor("WinResized to resize the PTY", func() bool {
				s := term.Sizes()
				return len(s) > 0 && s[len(s)-1] == [2]int{5, cols}
			}, func() string { return fmt.Sprint(term.Sizes()) })
		}

		// The command ends: the model gets its result, the window its
		// exit status.
		term.Exit(0)
		next := fake.Next(t)
		res, isErr := lastResult(t, next)
		assert.False(t, isErr)
		assert.Contains(t, res, "exit code 0")
		next.Reply("Hello, Alice")
		n.WaitForText("terminal", "[exited 0]")

		// q in normal mode closes it and returns to the chat.
		n.Lua(`vim.api.nvim_set_current_win(...)`, win)
		n.Keys("q")
		n.WaitFor("the terminal to close", func() bool { return n.Buffer("terminal") == 0 }, func() string { return "" })
		n.LuaResult(&role, `return vim.b.magenta_role`)
		assert.Equal(t, "display", role)
		n.WaitForText("display", view.TerminalEndedNote("t"))
		assert.NotContains(t, n.Text(n.Buffer("display")), view.TerminalOpenNote)
	})
}

// Closing the window while the command runs returns to the chat; t opens
// it again, replaying what was printed; input to an unknown or ended
// terminal is dropped with a warning, never a crash.
func TestInteractiveTerminalCloseAndBadInput(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		term := memshell.NewTerminal()
		n, fake := startInteractive(t, bin, term, `keymaps = { display = { terminal = "T" } },`)
		term.Output([]byte("step one\r\n"))
		term.SetScreen("step one")
		term.SetWaiting(true)
		n.WaitForText("display", "┆ step one")
		n.WaitForText("display", view.TerminalWaitingHint("T")) // the configured key
		n.FocusRole("display")
		n.CursorTo("step one")
		n.Keys("T")
		n.WaitForText("terminal", "step one")
		n.WaitForText("display", view.TerminalOpenNote)
		n.Command("close")
		n.WaitFor("the terminal to close", func() bool { return n.Buffer("terminal") == 0 }, func() string { return "" })
		n.WaitFor("the block to say it is closed", func() bool {
			return !strings.Contains(n.Text(n.Buffer("display")), view.TerminalOpenNote)
		}, func() string { return n.Text(n.Buffer("display")) })

		// Opened again: the whole output so far is replayed.
		term.Output([]byte("step two\r\n"))
		n.FocusRole("display")
		n.CursorTo("step one")
		n.Keys("T")
		text := n.WaitForText("terminal", "step two")
		assert.Contains(t, text, "step one")

		// Bad input: an unknown terminal, a malformed id, a size out of
		// range.
		n.Lua(`require('magenta.host').notify("terminal_input", { id = 999, data = "x" })`)
		n.Lua(`require('magenta.host').notify("terminal_input", { id = "abc", data = 5 })`)
		n.Lua(`require('magenta.host').notify("terminal_resize", { id = 999, rows = -1, cols = 1e9 })`)
		n.Lua(`require('magenta.host').notify("terminal_closed", { id = 12345 })`)
		n.WaitFor("the warning", func() bool { return strings.Contains(n.Messages(), "terminal 999 is not open") },
			func() string { return n.Messages() })

		// Input after the end goes nowhere.
		term.Exit(2)
		next := fake.Next(t)
		next.Reply("ok")
		n.WaitForText("terminal", "[exited 2]")
		_, err := n.V.Input("late")
		require.NoError(t, err)
		var pong string
		require.NoError(t, n.V.ExecLua(`return require('magenta.host').request("ping")`, &pong))
		assert.Equal(t, "pong", pong, "the host still answers")
		assert.Equal(t, "", term.Written())
	})
}

// The numbers :help magenta-interactive quotes are the code's.
func TestInteractiveDocQuotesTheConstants(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(nvimtest.Root(), "doc", "magenta.txt"))
	require.NoError(t, err)
	doc := strings.Join(strings.Fields(string(data)), " ")
	for _, want := range []string{
		fmt.Sprintf("(%d rows × %d columns until", capabilities.TerminalDefaultRows, capabilities.TerminalDefaultCols),
		fmt.Sprintf("the last %d lines of its screen", view.ScreenLines),
		fmt.Sprintf("silent for %d seconds", int(capabilities.TerminalPromptSilence.Seconds())),
		fmt.Sprintf("(the first %d MB of it is kept", capabilities.TerminalRawMaxBytes>>20),
	} {
		assert.Contains(t, doc, want)
	}
}
