package chat

import (
	"sync"

	"github.com/magenta-nvim/magenta/pkg/config"
)

// Compact compacts the active thread (:Magenta compact).
func (a *App) Compact() { a.do(func() { a.showActive(); a.active.Compact() }) }

// profileBook is the current profile list, readable from thread
// goroutines (a thread's compactProfile is looked up when it compacts,
// so a setup() in between is seen). Safe for concurrent use.
type profileBook struct {
	mu   sync.Mutex
	opts config.Options
}

func (b *profileBook) set(o config.Options) {
	b.mu.Lock()
	b.opts = o
	b.mu.Unlock()
}

func (b *profileBook) lookup(name string) (config.Profile, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.opts.Profile(name)
}
