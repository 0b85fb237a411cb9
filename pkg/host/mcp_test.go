package host_test

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/host"
	"github.com/magenta-nvim/magenta/pkg/mcp/mcptest"
	"github.com/magenta-nvim/magenta/pkg/nvimtest"
	"github.com/magenta-nvim/magenta/pkg/proctest"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
)

// mcpStatus is one server of the "mcp" request's answer.
type mcpStatus struct {
	Name  string   `msgpack:"name"`
	State string   `msgpack:"state"`
	Tools []string `msgpack:"tools"`
	PID   int      `msgpack:"pid"`
}

func offers(c *providertest.Call, name string) bool {
	for _, s := range c.Request.Tools {
		if s.Name == name {
			return true
		}
	}
	return false
}

// A user adds an MCP server to setup(): it starts in the background
// when the sidebar opens, its tools are offered once it is ready (the
// first request waits for it briefly: mcp_start_test.go), the model's
// call asks first and its result reaches the model; :Magenta mcp shows
// the server, and closing the host leaves no server process behind.
func TestMCPServerToolEndToEnd(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	envKey, envVal, _ := strings.Cut(mcptest.Env(), "=")
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n := nvimtest.Start(t, bin)
		fake := providertest.New()
		h := n.StartHost(host.Options{
			Version:     "test",
			NewProvider: func(config.Profile) (provider.Provider, error) { return fake, nil },
		})
		n.Setup(fmt.Sprintf(`{
			profiles = { { name = "fast", provider = "anthropic", model = "model-a" } },
			sandbox = { enabled = false },
			mcpServers = { t = { command = %q, env = { %s = %q }, allow = { "pid" } } },
		}`, exe, envKey, envVal))
		n.Command("Magenta toggle")
		n.WaitForText("display", "# New thread")

		n.Type("hello")
		n.Keys("<CR>")
		fake.Next(t).Reply("hi")

		var status []mcpStatus
		n.WaitFor("the MCP server to be ready", func() bool {
			n.LuaResult(&status, `return require('magenta.host').request('mcp')`)
			return len(status) == 1 && status[0].State == "ready"
		}, func() string { return fmt.Sprintf("%+v", status) })
		assert.Contains(t, status[0].Tools, "mcp__t__echo")
		var lines []string
		n.LuaResult(&lines, `return require('magenta.commands').mcp_lines()`)
		assert.Contains(t, strings.Join(lines, "\n"), "t (stdio, from setup()): ready")
		assert.Contains(t, strings.Join(lines, "\n"), "skipped: tool \"bad_schema\"")

		n.Type("echo it")
		n.Keys("<CR>")
		second := fake.Next(t)
		require.True(t, offers(second, "mcp__t__echo"), "the server's tools join once it is ready")
		second.ToolUse("tu_1", "mcp__t__echo", map[string]string{"text": "from the model"})
		second.Stop(provider.StopToolUse)
		text := n.WaitForText("display", "> YES")
		assert.Contains(t, text, "this tool, every thread")
		n.FocusRole("display")
		n.CursorTo("> YES")
		n.Keys("<CR>")
		third := fake.Next(t)
		res, isErr := lastResult(t, third)
		assert.False(t, isErr)
		assert.Equal(t, "echo: from the model", res)
		third.Reply("done")
		// The chat's line shows the result, not the name twice and a size.
		text = n.WaitForText("display", "✓ mcp__t__echo: echo: from the model")
		assert.NotContains(t, text, "chars")

		pid := status[0].PID
		require.NotZero(t, pid)
		h.Close()
		deadline := time.Now().Add(30 * time.Second)
		for proctest.Alive(pid) {
			require.True(t, time.Now().Before(deadline), "the MCP server process %d outlived the host", pid)
			time.Sleep(20 * time.Millisecond)
		}
	})
}

// mcpServers from setup() are checked by the Lua side: a bad entry is
// named and dropped, the good ones kept; :Magenta mcp says when none is
// configured.
func TestMCPServersOptionsFromSetup(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, _ := start(t, bin)
		var lines []string
		n.LuaResult(&lines, `return require('magenta.commands').mcp_lines()`)
		assert.Contains(t, strings.Join(lines, "\n"), "no servers: none in setup()")
		var msg string
		n.LuaResult(&msg, `local ok, err = require('magenta.config').set({ mcpServers = {
			both = { command = "x", url = "http://y" },
			typo = { comand = "x" },
			good = { url = "http://127.0.0.1:9/mcp", headers = { A = "b" }, allow = { "*" }, timeout = 5 },
		} }); return err or ""`)
		assert.Contains(t, msg, "option 'mcpServers.both' needs either command or url")
		assert.Contains(t, msg, "unknown option 'mcpServers.typo.comand'")
		var names []string
		n.LuaResult(&names, `local out = {} for k in pairs(require('magenta.config').options.mcpServers) do out[#out+1] = k end return out`)
		assert.Equal(t, []string{"good"}, names)
	})
}

// A server whose command does not exist: the thread goes on without it
// and the user is told why, once.
func TestMCPMissingCommandIsReported(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n := nvimtest.Start(t, bin)
		fake := providertest.New()
		n.StartHost(host.Options{
			Version:     "test",
			NewProvider: func(config.Profile) (provider.Provider, error) { return fake, nil },
		})
		n.Setup(`{
			profiles = { { name = "fast", provider = "anthropic", model = "model-a" } },
			sandbox = { enabled = false },
			mcpServers = { gone = { command = "/nonexistent/mcp-server" } },
		}`)
		n.Command("Magenta toggle")
		n.WaitForText("display", "# New thread")
		n.Type("hello")
		n.Keys("<CR>")
		fake.Next(t).Reply("hi")
		n.WaitFor("the failure to be reported", func() bool {
			return strings.Contains(n.Messages(), `MCP server "gone": could not start`)
		}, n.Messages)
		var lines []string
		n.LuaResult(&lines, `return require('magenta.commands').mcp_lines()`)
		text := strings.Join(lines, "\n")
		assert.Contains(t, text, "gone (stdio, from setup()): failed")
		assert.Contains(t, text, "last error: could not start")
		n.Type("again")
		n.Keys("<CR>")
		next := fake.Next(t)
		for _, s := range next.Request.Tools {
			assert.False(t, strings.HasPrefix(s.Name, "mcp__"), "offered %s", s.Name)
		}
		assert.True(t, offers(next, "thread_title"), "the built-in tools stay")
		next.Reply("ok")
	})
}
