package mcp

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/magenta-nvim/magenta/pkg/approval"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// Options configure a Manager.
type Options struct {
	Servers []ServerConfig
	// Broker asks the user before a tool's first call (nil: every call
	// is denied unless the allow list names the tool).
	Broker *approval.Broker
	// OnChange is called (from any goroutine) when a server's state or
	// tools change, so the UI can redraw.
	OnChange func()
	// OnFailure is told (from any goroutine) when a server fails to
	// start or stops unexpectedly, so the user hears of it.
	OnFailure func(server string, err error)
	// Version is sent to servers as the client's version.
	Version string
}

// Manager owns the configured servers. Safe for concurrent use.
type Manager struct {
	opts    Options
	ctx     context.Context
	cancel  context.CancelFunc
	servers []*server // sorted by name
	wg      sync.WaitGroup

	mu     sync.Mutex
	always map[string]bool // tools the user answered ALWAYS for
	closed bool            // no goroutine starts once Close waits
}

// spawn runs f on a goroutine Close waits for, unless Close has begun.
func (m *Manager) spawn(f func()) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return false
	}
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		f()
	}()
	return true
}

// NewManager returns a manager of the servers; none is started yet.
func NewManager(opts Options) *Manager {
	ctx, cancel := context.WithCancel(context.Background())
	m := &Manager{opts: opts, ctx: ctx, cancel: cancel, always: map[string]bool{}}
	for _, c := range opts.Servers {
		m.servers = append(m.servers, &server{cfg: c, m: m})
	}
	sort.Slice(m.servers, func(i, j int) bool { return m.servers[i].cfg.Name < m.servers[j].cfg.Name })
	return m
}

// Tools returns the tools of the servers that are ready, and starts in
// the background those not started yet (or due a restart). It never
// waits for a server.
func (m *Manager) Tools() []tools.Tool {
	var out []tools.Tool
	for _, s := range m.servers {
		out = append(out, s.need()...)
	}
	return out
}

// State is where a server is in its life.
type State string

const (
	StateIdle     State = "idle"
	StateStarting State = "starting"
	StateReady    State = "ready"
	StateFailed   State = "failed"
	StateStopped  State = "stopped"
)

// Status is what :Magenta mcp and :checkhealth show about a server.
type Status struct {
	Name      string   `msgpack:"name" json:"name"`
	Transport string   `msgpack:"transport" json:"transport"`
	State     State    `msgpack:"state" json:"state"`
	Tools     []string `msgpack:"tools" json:"tools"`
	Warnings  []string `msgpack:"warnings" json:"warnings"`
	LastError string   `msgpack:"last_error" json:"last_error"`
	PID       int      `msgpack:"pid" json:"pid"`
}

// Status lists every server's state, sorted by name.
func (m *Manager) Status() []Status {
	out := make([]Status, 0, len(m.servers))
	for _, s := range m.servers {
		out = append(out, s.status())
	}
	return out
}

// Close stops every server (killing stdio servers' process groups) and
// waits for their goroutines.
func (m *Manager) Close() {
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	m.cancel()
	for _, s := range m.servers {
		s.stop()
	}
	m.wg.Wait()
}

func (m *Manager) changed() {
	if m.opts.OnChange != nil {
		m.opts.OnChange()
	}
}

func (m *Manager) approved(name string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.always[name]
}

func (m *Manager) remember(name string) {
	m.mu.Lock()
	m.always[name] = true
	m.mu.Unlock()
}

// restartDelay is how long a failed server waits before the next start:
// doubling from a second, capped at a minute.
func restartDelay(failures int) time.Duration {
	d := time.Second
	for i := 1; i < failures && d < time.Minute; i++ {
		d *= 2
	}
	return min(d, time.Minute)
}
