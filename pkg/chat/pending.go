package chat

import (
	"github.com/magenta-nvim/magenta/pkg/chat/view"
	"github.com/magenta-nvim/magenta/pkg/config"
)

// PendingKey is the display key of the frame a host shows while it builds
// its app (PendingFrame).
const PendingKey = "pending"

// PendingFrame is the top of the thread a new app opens first — its title
// and profile, which the options alone decide — drawn the way the thread
// draws it. A host shows it as soon as it has the options, while it builds
// what the thread needs (the permission checker, the environment, the
// tools, the hooks: most of a first toggle's time in the host); the
// thread's own first frame then replaces it, adding what only the
// environment knows (where the thread works, the MCP servers).
func PendingFrame(opts config.Options) *view.Frame {
	if len(opts.Profiles) == 0 {
		return &view.Frame{}
	}
	p := opts.Profiles[0]
	header := view.RenderHeader("header", 1, view.Header{Profile: p.Name, Provider: p.Provider, Model: p.Model})
	settled, ends := view.AppendSettled(nil, nil, header)
	return &view.Frame{Settled: settled, SettledEnds: ends}
}
