package headless

import (
	"errors"
	"fmt"
	"time"

	"github.com/magenta-nvim/magenta/pkg/approval"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/mcp"
)

// StartMCP starts the config file's MCP servers, as the Neovim host
// starts setup()'s (their tools ask per call unless allowed; the broker
// answers). A workspace's .mcp.json is not read: its servers run only
// once trusted, and a run has no one to ask. Nil when none is
// configured; the caller closes it after the App.
func StartMCP(opts config.Options, broker *approval.Broker, version string, warn func(string)) *mcp.Manager {
	if len(opts.MCPServers) == 0 {
		return nil
	}
	servers := make([]mcp.ServerConfig, 0, len(opts.MCPServers))
	for _, name := range opts.MCPServerNames() {
		s := opts.MCPServers[name]
		servers = append(servers, mcp.ServerConfig{
			Name: name, Command: s.Command, Args: s.Args, Env: s.Env, Cwd: s.Cwd,
			URL: s.URL, Headers: s.Headers, Allow: s.Allow,
			Timeout: time.Duration(s.Timeout * float64(time.Second)),
		})
	}
	m := mcp.NewManager(mcp.Options{
		Servers: servers, Broker: broker, Version: version,
		OnFailure: func(server string, err error) { warn(fmt.Sprintf("MCP server %q: %v", server, err)) },
		Verify:    func(mcp.ServerConfig) error { return errors.New(".mcp.json is not read outside Neovim") },
	})
	m.Start()
	return m
}
