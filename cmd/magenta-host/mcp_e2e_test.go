package main

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/mcp"
	"github.com/magenta-nvim/magenta/pkg/mcp/mcptest"
	"github.com/magenta-nvim/magenta/pkg/nvimtest"
	"github.com/magenta-nvim/magenta/pkg/proctest"
)

// TestBinaryMCPEndToEnd runs an MCP server through the built binaries:
// the host starts magenta-mcp (the gateway holding the MCP SDK, which the
// host does not link) beside itself, the model calls the server's tools
// and gets their results; when the host is killed, the gateway and the
// server die with it.
func TestBinaryMCPEndToEnd(t *testing.T) {
	bin := nvimtest.HostBinary(t)
	gateway := filepath.Join(filepath.Dir(bin), mcp.GatewayBinary)
	if _, err := os.Stat(gateway); err != nil {
		t.Fatalf("%s is not built beside the host (make build): %v", gateway, err)
	}
	exe, err := os.Executable()
	require.NoError(t, err)
	env := strings.SplitN(mcptest.Env(), "=", 2)
	nvimtest.ForEach(t, func(t *testing.T, nvimBin string) {
		api := &fakeAnthropic{streams: [][]string{
			textStream("Echo first. ", map[string]any{"id": "toolu_1", "name": "mcp__t__echo", "input": map[string]any{"text": "through the gateway"}}),
			textStream("Now the pid. ", map[string]any{"id": "toolu_2", "name": "mcp__t__pid", "input": map[string]any{}}),
			textStream("Done.", nil),
		}}
		srv := httptest.NewServer(api)
		defer srv.Close()

		n := nvimtest.Start(t, nvimBin, "MAGENTA_E2E_KEY=test-key")
		n.Serve()
		n.Setup(fmt.Sprintf(`{
			profiles = { { name = "wire", provider = "anthropic", model = "claude-test", baseUrl = %q, apiKeyEnvVar = "MAGENTA_E2E_KEY" } },
			host = { binary = %q, logFile = %q },
			mcpServers = { t = { command = %q, env = { [%q] = %q }, allow = { "*" } } },
		}`, srv.URL, bin, filepath.Join(n.Dir, "magenta.log"), exe, env[0], env[1]))
		n.Command("Magenta toggle")
		n.WaitForText("display", "# New thread")
		// The server starts once the sidebar is drawn; a loaded machine
		// (the race detector) can take longer than the 2 s a first
		// request waits for it, so the test waits for it to be ready.
		n.WaitFor("the MCP server to be ready", func() bool {
			var st []struct {
				State string `msgpack:"state"`
			}
			n.LuaResult(&st, `return (require('magenta.host').request("mcp"))`)
			return len(st) == 1 && st[0].State == "ready"
		}, n.Messages)
		n.Type("use the server")
		n.Keys("<CR>")
		text := n.WaitForText("display", "Done.")
		assert.Contains(t, text, "mcp__t__echo")

		api.mu.Lock()
		require.Len(t, api.requests, 3)
		second, _ := json.Marshal(api.requests[1]["messages"])
		third, _ := json.Marshal(api.requests[2]["messages"])
		api.mu.Unlock()
		assert.Contains(t, string(second), "echo: through the gateway")
		m := regexp.MustCompile(`"content":\[\{"text":"(\d+)","type":"text"\}\],"tool_use_id":"toolu_2"`).FindStringSubmatch(string(third))
		require.NotNil(t, m, "the pid tool's result: %s", third)
		serverPID, err := strconv.Atoi(m[1])
		require.NoError(t, err)
		require.True(t, proctest.Alive(serverPID))
		// The server's parent is the gateway, a child of the host.
		gatewayPID, err := proctest.StatusKiB(serverPID, "PPid") // a plain number
		require.NoError(t, err)
		exePath, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", gatewayPID))
		require.NoError(t, err)
		assert.Equal(t, gateway, exePath, "the server runs under the built gateway")

		var info struct {
			Pid int `msgpack:"pid"`
		}
		n.LuaResult(&info, `return (require('magenta.host').request("version"))`)
		require.NoError(t, syscall.Kill(info.Pid, syscall.SIGKILL))
		n.WaitFor("the gateway and the MCP server to die with the host", func() bool {
			return !proctest.Alive(int(gatewayPID)) && !proctest.Alive(serverPID)
		}, func() string {
			return fmt.Sprintf("gateway %d alive: %v; server %d alive: %v", gatewayPID, proctest.Alive(int(gatewayPID)), serverPID, proctest.Alive(serverPID))
		})
	})
}
