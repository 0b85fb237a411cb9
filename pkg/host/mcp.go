package host

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/magenta-nvim/magenta/pkg/chat/view"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/mcp"
	"github.com/magenta-nvim/magenta/pkg/mcp/project"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// withMCP starts a manager of the configured MCP servers (none runs
// until a request lists tools) and, unless mcpProjectFile is false, the
// gate of the workspace's .mcp.json (read when tools are first needed,
// its servers added only once the user trusts it), and adds their tools
// to reg. It returns what the threads' headers show about the servers.
// The manager lives as long as the host; Close stops it. Called with
// h.mu held.
func (h *Host) withMCP(opts config.Options, reg *tools.Registry, workspace, dataDir string) (*tools.Registry, func() view.MCPLine) {
	readProject := opts.ReadMCPProjectFile()
	if len(opts.MCPServers) == 0 && !readProject {
		return reg, nil
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
	// A server that became ready (or failed), or a changed trust, shows
	// in the next frame: the app enqueues a refresh for the thread.
	refresh := func() {
		if app := h.App(); app != nil {
			app.Refresh()
		}
	}
	var gate *project.Gate
	m := mcp.NewManager(mcp.Options{
		Servers: servers, Broker: h.broker, Version: h.opts.Version,
		OnChange: refresh,
		// Said once per distinct error, not at every restart.
		OnFailure: func(server string, err error) {
			h.warnOnce(fmt.Sprintf("MCP server %q: %v (:Magenta mcp)", server, err))
		},
		OnUse: func() {
			if gate != nil {
				gate.Check()
			}
		},
		// Before every start of a project server: is what it runs still
		// what the user trusted? (A script the model rewrote is not.)
		Verify: func(c mcp.ServerConfig) error {
			if gate == nil {
				return fmt.Errorf("%s: not trusted", project.FileName)
			}
			return gate.Verify(c)
		},
	})
	var store *project.Store
	if dataDir != "" {
		store = project.NewStore(filepath.Join(dataDir, "magenta", project.StoreFile))
	}
	// The trust is keyed by the workspace's real path, so a symlinked
	// checkout is the same workspace.
	if real, err := filepath.EvalSymlinks(workspace); err == nil {
		workspace = real
	}
	gate = project.NewGate(project.Options{
		Workspace: workspace, Off: !readProject, Store: store, Broker: h.broker,
		SetServers: m.SetProjectServers, OnChange: refresh,
		Warn: func(msg string) { h.warnOnce(msg) },
	})
	h.mcp, h.mcpProject = m, gate
	line := func() view.MCPLine {
		var starting, failed []string
		for _, p := range m.Progress() {
			if p.Failed {
				failed = append(failed, p.Name)
			} else {
				starting = append(starting, p.Name)
			}
		}
		return view.NewMCPLine(starting, failed)
	}
	return reg.WithProvider(m), line
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

// mcpProjectStatus answers the "mcp_project" request: where the
// workspace's .mcp.json stands.
func (h *Host) mcpProjectStatus() project.Status {
	h.mu.Lock()
	g := h.mcpProject
	h.mu.Unlock()
	if g == nil {
		return project.Status{State: project.StateOff}
	}
	return g.Status()
}

// mcpTrust trusts (or untrusts) the project file: :Magenta mcp-trust and
// mcp-untrust. It never blocks (the gate works on its goroutine).
func (h *Host) mcpTrust(trust bool) {
	h.mu.Lock()
	g := h.mcpProject
	h.mu.Unlock()
	switch {
	case g == nil:
		h.warnOnce("the project's .mcp.json is not read (mcpProjectFile = false)")
	case trust:
		g.Trust()
	default:
		g.Untrust()
	}
}

// closeMCP withdraws the trust question and stops every MCP server
// (their process groups are killed).
func (h *Host) closeMCP() {
	h.mu.Lock()
	m, g := h.mcp, h.mcpProject
	h.mu.Unlock()
	if g != nil {
		g.Close()
	}
	if m != nil {
		m.Close()
	}
}
