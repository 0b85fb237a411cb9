package mcp

import (
	"os"
	"testing"

	"github.com/magenta-nvim/magenta/pkg/mcp/gateway"
	"github.com/magenta-nvim/magenta/pkg/mcp/mcptest"
)

func TestMain(m *testing.M) {
	mcptest.ServeIfAsked()
	// This binary is the gateway too (no magenta-mcp beside a test).
	gateway.ServeIfAsked()
	UseThisBinaryAsGateway()
	os.Exit(m.Run())
}
