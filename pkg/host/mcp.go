package host

import (
	"fmt"
	"time"

	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/mcp"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// withMCP starts a manager of the configured MCP servers (none runs
// until a request lists tools) and adds their tools to reg. The manager
// lives as long as the host; Close stops it. Called with h.mu held.
func (h *Host) withMCP(opts config.Options, reg *tools.Registry) *tools.Registry {
	if len(opts.MCPServers) == 0 {
		return reg
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
	h.mcp = mcp.NewManager(mcp.Options{
		Servers: servers, Broker: h.broker, Version: h.opts.Version,
		// A server that became ready (or failed) shows in the next frame.
		OnChange: func() {
			if app := h.App(); app != nil {
				app.Refresh()
			}
		},
		// Said once per distinct error, not at every restart.
		OnFailure: func(server string, err error) {
			h.warnOnce(fmt.Sprintf("MCP server %q: %v (:Magenta mcp)", server, err))
		},
	})
	return reg.WithProvider(h.mcp)
}

// mcpStatus answers the "mcp" request (:Magenta mcp, :checkhealth).
func (h *Host) mcpStatus() []mcp.Status {
	h.mu.Lock()
	m := h.mcp
	h.mu.Unlock()
	if m == nil {
		return []mcp.Status{}
	}
	return m.Status()
}

// closeMCP stops every MCP server (their process groups are killed).
func (h *Host) closeMCP() {
	h.mu.Lock()
	m := h.mcp
	h.mu.Unlock()
	if m != nil {
		m.Close()
	}
}
