package host_test

import (
	"io"
	"log/slog"
	"os"
	"testing"

	"github.com/magenta-nvim/magenta/pkg/mcp/mcptest"
)

func TestMain(m *testing.M) {
	// The MCP tests run this binary as their stdio MCP server.
	mcptest.ServeIfAsked()
	// The host logs to slog's default; keep test output readable.
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	os.Exit(m.Run())
}
