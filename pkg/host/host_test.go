package host_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/host"
	"github.com/magenta-nvim/magenta/pkg/nvimtest"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
)

const testOptions = `{
	profiles = {
		{ name = "fast", provider = "anthropic", model = "model-a" },
		{ name = "local", provider = "openai", model = "qwen", baseUrl = "http://127.0.0.1:9/v1" },
	},
	sandbox = { enabled = false },
}`

// start opens a Neovim with the plugin set up and the host in-process on
// a scripted provider.
func start(t testing.TB, bin string) (*nvimtest.Nvim, *providertest.Fake) {
	n := nvimtest.Start(t, bin)
	fake := providertest.New()
	n.StartHost(host.Options{
		Version:     "test",
		NewProvider: func(config.Profile) (provider.Provider, error) { return fake, nil },
	})
	n.Setup(testOptions)
	return n, fake
}

func TestChatInTheSidebar(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := start(t, bin)
		n.Command("Magenta toggle")
		n.WaitForText("display", "# New thread")

		n.Type("What is 2+2?")
		n.Keys("<CR>")
		call := fake.Next(t)
		assert.Equal(t, "What is 2+2?", call.LastUserText())
		assert.Empty(t, n.Lines(n.Buffer("input"))[0], "the input is cleared once sent")

		call.Text("It is ")
		n.WaitForText("display", "It is ")
		call.ToolUse("tu_1", "thread_title", map[string]string{"title": "Arithmetic"})
		call.Stop(provider.StopToolUse)
		next := fake.Next(t)
		next.Reply("4.")
		n.WaitForText("display", "4.")
		text := n.WaitForText("display", "ready")
		assert.Contains(t, text, "# Arithmetic")
		assert.Contains(t, text, "## assistant\nIt is \n")
		assert.Contains(t, text, "✓ thread_title: Arithmetic")
		assert.Contains(t, text, "4.")

		// = on the tool line expands it; the host resolves the binding.
		n.FocusRole("display")
		n.CursorTo("thread_title")
		n.Keys("=")
		n.WaitForText("display", `{"title":"Arithmetic"}`)

		var modifiable bool
		n.LuaResult(&modifiable, `return vim.bo[...].modifiable`, n.Buffer("display"))
		assert.False(t, modifiable, "the display buffer is read-only")
	})
}

func TestToggleKeepsTypedText(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, _ := start(t, bin)
		n.Command("Magenta toggle")
		n.WaitForText("display", "# New thread")
		n.Type("half-written thought")
		n.Command("Magenta toggle")
		var wins int
		n.LuaResult(&wins, `return #vim.fn.win_findbuf(...)`, n.Buffer("display"))
		assert.Equal(t, 0, wins)
		n.Command("Magenta toggle")
		assert.Equal(t, []string{"half-written thought"}, n.Lines(n.Buffer("input")))
	})
}

func TestAbortAndThreads(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := start(t, bin)
		n.Command("Magenta toggle")
		n.Type("long story")
		n.Command("Magenta send")
		call := fake.Next(t)
		call.Text("Once upon")
		n.WaitForText("display", "Once upon")
		n.Command("Magenta abort")
		<-call.Ended()
		n.WaitForText("display", "ℹ aborted")

		n.Command("Magenta new-thread")
		n.WaitFor("a fresh thread", func() bool {
			return !strings.Contains(n.Text(n.Buffer("display")), "Once upon")
		}, func() string { return n.Text(n.Buffer("display")) })
		n.Command("Magenta threads")
		n.WaitForText("display", "# Threads")
		n.FocusRole("display")
		n.CursorTo("2. ") // most recently active first: the new thread is 1.
		n.Keys("<CR>")
		n.WaitForText("display", "Once upon")

		// :Magenta thread completes the short unique ids the list shows.
		var ids []string
		n.LuaResult(&ids, `return vim.fn.getcompletion("Magenta thread ", "cmdline")`)
		require.Len(t, ids, 2)
		assert.NotEqual(t, ids[0], ids[1])
		assert.Contains(t, n.Text(n.Buffer("display")), "Once upon")
		n.Command("Magenta thread " + ids[1])
		n.WaitFor("the second thread", func() bool {
			return !strings.Contains(n.Text(n.Buffer("display")), "Once upon")
		}, func() string { return n.Text(n.Buffer("display")) })

		n.Command("Magenta profile local")
		n.WaitForText("display", "profile local · openai qwen")
	})
}

func TestBadInputGetsClearErrors(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, _ := start(t, bin)
		err := n.V.Command("Magenta nonsense")
		require.Error(t, err)
		assert.Contains(t, err.Error(), `unknown subcommand "nonsense"; use one of: toggle, send,`)
		n.Command("Magenta profile nope")
		n.WaitFor("an error naming the profiles", func() bool {
			return strings.Contains(n.Messages(), `no profile "nope"; profiles: fast, local`)
		}, n.Messages)
		// Malformed RPC from a misbehaving caller: reported, not fatal.
		n.Lua(`vim.rpcnotify(require('magenta.host').channel(), "0:function:MagentaEvent", { 42 })`)
		n.WaitFor("an error about the event", func() bool {
			return strings.Contains(n.Messages(), "event name must be a string")
		}, n.Messages)
		var pong string
		n.LuaResult(&pong, `return (require('magenta.host').request("ping"))`)
		require.Equal(t, "pong", pong)
	})
}
