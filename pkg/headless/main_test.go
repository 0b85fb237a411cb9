package headless

import (
	"os"
	"testing"

	"github.com/magenta-nvim/magenta/pkg/mcp/mcptest"
)

// TestMain lets this test binary serve as the MCP test server (mcptest)
// when a run starts it as one.
func TestMain(m *testing.M) {
	mcptest.ServeIfAsked()
	os.Exit(m.Run())
}
