package host_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/host"
	"github.com/magenta-nvim/magenta/pkg/mcp/mcptest"
	"github.com/magenta-nvim/magenta/pkg/nvimtest"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
)

// mcpStates asks the host for each MCP server's state.
func mcpStates(n *nvimtest.Nvim) map[string]string {
	var status []mcpStatus
	n.LuaResult(&status, `return require('magenta.host').request('mcp')`)
	out := map[string]string{}
	for _, s := range status {
		out[s.Name] = s.State
	}
	return out
}

// MCP servers start when the sidebar first opens (once its first frame
// is drawn) — not in setup(), not
// when the host starts for another command, and without a message — so
// the first request offers their tools. A server still starting when
// the first message goes is waited for (briefly); one not ready by then
// is left out of that request, the chat says so, and its tools join a
// later request. The provider process is started at the same moment.
func TestMCPServersStartWhenTheSidebarOpens(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	envKey, envVal, _ := strings.Cut(mcptest.Env(), "=")
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		gate := filepath.Join(t.TempDir(), "gate")
		n := nvimtest.Start(t, bin)
		fake := providertest.New()
		var warmed atomic.Int32
		n.StartHost(host.Options{
			Version:     "test",
			NewProvider: func(config.Profile) (provider.Provider, error) { return fake, nil },
			Warm:        func() { warmed.Add(1) },
		})
		// slow starts only once the test creates the gate file.
		n.Setup(fmt.Sprintf(`{
			profiles = { { name = "fast", provider = "anthropic", model = "model-a" } },
			sandbox = { enabled = false },
			mcpServers = {
				t = { command = %q, env = { %s = %q }, allow = { "*" } },
				slow = { command = "/bin/sh", args = { "-c", 'while [ ! -e "$1" ]; do sleep 0.02; done; exec "$0"', %q, %q },
				         env = { %s = %q }, allow = { "*" } },
			},
		}`, exe, envKey, envVal, exe, gate, envKey, envVal))
		// :Magenta mcp starts the host, but not the servers.
		assert.Equal(t, map[string]string{"t": "idle", "slow": "idle"}, mcpStates(n))
		assert.Zero(t, warmed.Load(), "the provider process is not started before the sidebar opens")

		n.Command("Magenta toggle")
		n.WaitForText("display", "# New thread")
		n.WaitFor("t ready with no message sent", func() bool { return mcpStates(n)["t"] == "ready" },
			func() string { return fmt.Sprint(mcpStates(n)) })
		assert.Equal(t, "starting", mcpStates(n)["slow"])
		n.WaitFor("the provider process started once the first frame is drawn", func() bool { return warmed.Load() == 1 },
			func() string { return fmt.Sprint(warmed.Load()) })

		n.Type("hello")
		n.Keys("<CR>")
		first := fake.Next(t)
		assert.True(t, offers(first, "mcp__t__echo"), "the first request offers the tools of a server started at open")
		assert.False(t, offers(first, "mcp__slow__echo"))
		n.WaitForText("display", "MCP server slow is still starting: its tools are left out of this request and join a later one once it is ready")
		first.Reply("hi")

		require.NoError(t, os.WriteFile(gate, nil, 0o600))
		n.WaitFor("slow ready", func() bool { return mcpStates(n)["slow"] == "ready" },
			func() string { return fmt.Sprint(mcpStates(n)) })
		n.Type("again")
		n.Keys("<CR>")
		second := fake.Next(t)
		assert.True(t, offers(second, "mcp__slow__echo"), "its tools join once it is ready")
		second.Reply("ok")

		n.Command("Magenta toggle")
		n.Command("Magenta toggle")
		assert.EqualValues(t, 1, warmed.Load(), "once per host")
	})
}
