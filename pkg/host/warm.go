package host

import "github.com/magenta-nvim/magenta/pkg/chat"

// sidebarOpened starts in the background what the first request needs:
// the configured MCP servers (and the check of the project's .mcp.json)
// and the provider process, so a message sent soon after finds them
// ready — a thread's first request waits briefly for servers still
// starting (chat.ToolServerWait). Lua needs no event of its own: the
// display event when the sidebar makes its buffers, or attach naming
// them when a new host starts, say the sidebar opened. Never in setup();
// once per host, after attach made the app; nothing here blocks the
// event goroutine (Manager.Start and Warm only start goroutines).
func (h *Host) sidebarOpened() {
	h.mu.Lock()
	app, m := h.app, h.mcp
	h.mu.Unlock()
	if app == nil || !h.warmed.CompareAndSwap(false, true) {
		return
	}
	if m != nil {
		m.Start()
	}
	if h.opts.Warm != nil {
		h.opts.Warm()
	}
}

// toolServers is the MCP manager as threads wait for it; nil without
// one (never a nil *mcp.Manager in the interface). Called with h.mu held.
func (h *Host) toolServers() chat.ToolServers {
	if h.mcp == nil {
		return nil
	}
	return h.mcp
}
