package mcp

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"testing"

	"github.com/magenta-nvim/magenta/pkg/mcp/mcptest"
	"github.com/magenta-nvim/magenta/pkg/tools"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkEchoCall measures one echo call through the Tool (approval
// check, timeout, result mapping) against a direct SDK client call to a
// server of the same binary, in the same run; the difference is the
// Tool's overhead.
func BenchmarkEchoCall(b *testing.B) {
	cfg := stdioServer(b, "srv")
	input := json.RawMessage(`{"text":"hi"}`)
	b.Run("tool", func(b *testing.B) {
		m := NewManager(Options{Servers: []ServerConfig{cfg}})
		defer m.Close()
		echo := ready(b, m, toolCount)["mcp__srv__echo"]
		call := tools.Call{ID: "c", ThreadID: "t", Input: input}
		b.ResetTimer()
		for b.Loop() {
			if r := echo.Run(context.Background(), call); r.IsError {
				b.Fatal(r.Text)
			}
		}
	})
	b.Run("sdk", func(b *testing.B) {
		cmd := exec.Command(cfg.Command)
		cmd.Env = append(os.Environ(), mcptest.Env())
		client := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil)
		session, err := client.Connect(context.Background(), &sdk.CommandTransport{Command: cmd}, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer session.Close()
		b.ResetTimer()
		for b.Loop() {
			if _, err := session.CallTool(context.Background(), &sdk.CallToolParams{Name: "echo", Arguments: input}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
