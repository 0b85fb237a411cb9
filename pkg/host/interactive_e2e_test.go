package host_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/nvimtest"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
	"github.com/magenta-nvim/magenta/pkg/sandbox/sandboxtest"
)

// runInteractive makes the model run command with interactive set, the
// user approve it when it asks, and opens its terminal window with t once the block
// shows screen.
func runInteractive(t testing.TB, bin, command, screen string) (*nvimtest.Nvim, *providertest.Fake) {
	n, fake := startShell(t, bin)
	driveInteractive(t, n, fake, command, screen)
	return n, fake
}

// driveInteractive is runInteractive in a Neovim already started.
func driveInteractive(t testing.TB, n *nvimtest.Nvim, fake *providertest.Fake, command, screen string) {
	n.Type("run it")
	n.Keys("<CR>")
	call := fake.Next(t)
	call.ToolUse("tu_1", "bash_command", map[string]any{"command": command, "interactive": true, "description": "interactive"})
	call.Stop(provider.StopToolUse)
	// A command the checker allows runs at once; others wait for YES.
	display := n.Buffer("display")
	n.WaitFor("the approval or the screen", func() bool {
		text := n.Text(display)
		return strings.Contains(text, "> YES") || strings.Contains(text, "┆ "+screen)
	}, func() string { return n.Text(display) })
	n.FocusRole("display")
	if strings.Contains(n.Text(display), "> YES") {
		n.CursorTo("> YES")
		n.Keys("<CR>")
	}
	n.WaitForText("display", "┆ "+screen)
	n.CursorTo("┆ " + screen)
	n.Keys("t")
	n.WaitFor("the terminal window in terminal mode", func() bool { return terminalWindow(n) != 0 && mode(n) == "t" },
		func() string { return mode(n) })
	n.WaitForText("terminal", screen)
}

// TestInteractivePromptAnsweredInTheTerminal: a real command under a
// real PTY asks a question; the user answers it in the terminal buffer
// and the model gets the emulated text, not escape sequences.
func TestInteractivePromptAnsweredInTheTerminal(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := runInteractive(t, bin, `read -p "Enter your name: " name && printf '\033[32mHello, %s\033[0m\n' "$name"`, "Enter your name:")
		_, err := n.V.Input("Alice<CR>")
		require.NoError(t, err)
		next := fake.Next(t)
		res, isErr := lastResult(t, next)
		assert.False(t, isErr, res)
		assert.Contains(t, res, "Hello, Alice")
		assert.NotContains(t, res, "\x1b", "the model gets the emulator's text")
		assert.Contains(t, res, "exit code 0")
		next.Reply("done")
		n.WaitForText("terminal", "[exited 0]")
	})
}

// With the sandbox on (the default where bubblewrap works), an
// interactive command runs confined and still gets its terminal: the
// prompt is answered in the terminal buffer.
func TestInteractiveConfinedPromptAnsweredInTheTerminal(t *testing.T) {
	sandboxtest.Require(t)
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := start(t, bin)
		n.Setup(`{ shell = { logRoot = "` + filepath.Join(n.Dir, "logs") + `" } }`)
		n.Command("Magenta toggle")
		n.WaitForText("display", "sandbox on")
		driveInteractive(t, n, fake, `read -p "Enter your name: " name && echo "Hello, $name"`, "Enter your name:")
		_, err := n.V.Input("Alice<CR>")
		require.NoError(t, err)
		next := fake.Next(t)
		res, isErr := lastResult(t, next)
		assert.False(t, isErr, res)
		assert.Contains(t, res, "Hello, Alice")
		assert.Contains(t, res, "It ran in the sandbox")
		assert.NotContains(t, res, "not interactive")
		next.Reply("done")
		n.WaitForText("terminal", "[exited 0]")
	})
}

// TestInteractiveCtrlCInTheTerminal: Ctrl-C typed in the terminal buffer
// interrupts the command (SIGINT through the PTY's line discipline).
func TestInteractiveCtrlCInTheTerminal(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := runInteractive(t, bin, `echo waiting; sleep 1000`, "waiting")
		_, err := n.V.Input("<C-c>")
		require.NoError(t, err)
		next := fake.Next(t)
		res, _ := lastResult(t, next)
		assert.True(t, strings.Contains(res, "130") || strings.Contains(res, "SIGINT"), res)
		next.Reply("stopped")
		n.WaitForText("display", "stopped")
	})
}
