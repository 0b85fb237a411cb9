package headless

import (
	"os"
	"testing"

	"github.com/magenta-nvim/magenta/pkg/mcp"
	"github.com/magenta-nvim/magenta/pkg/mcp/gateway"
	"github.com/magenta-nvim/magenta/pkg/mcp/mcptest"
)

// TestMain lets this test binary serve as the MCP test server (mcptest)
// and as the MCP gateway when a run starts it as one.
func TestMain(m *testing.M) {
	mcptest.ServeIfAsked()
	gateway.ServeIfAsked()
	mcp.UseThisBinaryAsGateway()
	os.Exit(m.Run())
}
