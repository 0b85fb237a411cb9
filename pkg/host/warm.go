package host

import (
	"time"

	"github.com/magenta-nvim/magenta/pkg/chat"
)

// sidebarOpened starts in the background what the first request needs:
// the configured MCP servers (and the check of the project's .mcp.json)
// and the provider process, so a message sent soon after finds them
// ready — a thread's first request waits briefly for servers still
// starting (chat.ToolServerWait). Lua needs no event of its own: the
// display event when the sidebar makes its buffers, or attach naming
// them when a new host starts, say the sidebar opened. Never in setup();
// once per host, after attach made the app. The first checkpoint of the
// workspace is taken too (pkg/rewind). Nothing here blocks the
// event goroutine (Manager.Start and Warm only start goroutines, and
// only once the first frame is drawn).
func (h *Host) sidebarOpened() {
	h.mu.Lock()
	app, m := h.app, h.mcp
	h.mu.Unlock()
	if app == nil || !h.warmed.CompareAndSwap(false, true) {
		return
	}
	// After the first frame: starting the provider process (a 30 MB
	// binary) and the MCP servers while the host draws it made the
	// first toggle wait for them on two cores. A message cannot be
	// typed and sent in the time it takes to draw one frame.
	warm := h.opts.Warm
	go func() {
		select {
		case <-h.renderer.Drawn():
		case <-h.ctx.Done():
			return
		}
		if m != nil {
			m.Start()
		}
		if warm != nil {
			warm()
		}
	}()
	if c := h.checkpoints; c != nil {
		// A while after the first frame: the first snapshot's git
		// processes must not compete with drawing it, nor with Neovim
		// settling the sidebar's windows right after (on two cores they
		// added 4–5 ms to the first toggle when started at once).
		go func() {
			select {
			case <-h.renderer.Drawn():
			case <-h.ctx.Done():
				return
			}
			select {
			case <-time.After(checkpointWarmDelay):
				c.Warm()
			case <-h.ctx.Done():
			}
		}()
	}
}

// checkpointWarmDelay is how long after the first frame the workspace's
// first checkpoint starts: far less than it takes to write a message.
const checkpointWarmDelay = time.Second

// toolServers is the MCP manager as threads wait for it; nil without
// one (never a nil *mcp.Manager in the interface). Called with h.mu held.
func (h *Host) toolServers() chat.ToolServers {
	if h.mcp == nil {
		return nil
	}
	return h.mcp
}
