package host_test

import (
	"io"
	"log/slog"
	"os"
	"testing"

	"github.com/magenta-nvim/magenta/pkg/capabilities/sshenv/sshtest"
	"github.com/magenta-nvim/magenta/pkg/htmlconv/childtest"
	"github.com/magenta-nvim/magenta/pkg/mcp"
	"github.com/magenta-nvim/magenta/pkg/mcp/gateway"
	"github.com/magenta-nvim/magenta/pkg/mcp/mcptest"
	"github.com/magenta-nvim/magenta/pkg/sandbox/zygote"
)

func TestMain(m *testing.M) {
	// The MCP tests run this binary as their stdio MCP server.
	mcptest.ServeIfAsked()
	// web_fetch converts HTML in this binary (no magenta-provider beside
	// it).
	childtest.ServeIfAsked()
	// And as the MCP gateway (magenta-mcp) of the host under test.
	gateway.ServeIfAsked()
	mcp.UseThisBinaryAsGateway()
	// The host under test runs in this binary: the sandbox's
	// confinement parent and its inits are this binary too, as they are
	// the host's when magenta-supervisor is missing.
	zygote.MainIfZygote()
	// The host logs to slog's default; keep test output readable.
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	code := m.Run()
	sshtest.StopShared() // the remote agent built for the ssh tests
	os.Exit(code)
}
