package main

import (
	"os"
	"testing"

	"github.com/magenta-nvim/magenta/pkg/mcp/mcptest"
)

// TestMain lets this test binary serve as the MCP server the built host's
// gateway starts (mcptest).
func TestMain(m *testing.M) {
	mcptest.ServeIfAsked()
	os.Exit(m.Run())
}
