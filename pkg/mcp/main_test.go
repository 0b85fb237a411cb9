package mcp

import (
	"os"
	"testing"

	"github.com/magenta-nvim/magenta/pkg/mcp/mcptest"
)

func TestMain(m *testing.M) {
	mcptest.ServeIfAsked()
	os.Exit(m.Run())
}
