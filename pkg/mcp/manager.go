package mcp

import (
	"context"
	"reflect"
	"slices"
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
	// OnUse is called (from the caller of Tools, which must not wait:
	// it must not block) every time tools are listed; the project file's
	// gate checks the file then.
	OnUse func()
	// Verify, when set, is asked before every start of a project
	// server (the first and each restart), from the starting goroutine:
	// an error (what the server runs changed since the user trusted it)
	// fails the start with it.
	Verify func(ServerConfig) error
}

// Manager owns the configured servers. Safe for concurrent use.
type Manager struct {
	opts    Options
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	gateway gatewayClient // the process holding the SDK sessions

	mu sync.Mutex
	// servers are setup()'s and the trusted project file's, sorted by
	// name; replaced (never changed in place) by SetProjectServers.
	servers []*server
	// shadowed are project servers a setup() server of the same name
	// hides.
	shadowed []ServerConfig
	always   map[string]bool // tools the user answered ALWAYS for
	closed   bool            // no goroutine starts once Close waits
	used     bool            // Tools was called: new servers start at once
	// wake is closed (and replaced) at every change of a server's state,
	// for WaitStarted.
	wake chan struct{}
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
	m := &Manager{opts: opts, ctx: ctx, cancel: cancel, always: map[string]bool{}, wake: make(chan struct{})}
	for _, c := range opts.Servers {
		c.Source = SourceSetup
		m.servers = append(m.servers, &server{cfg: c, m: m})
	}
	sortServers(m.servers)
	return m
}

func sortServers(ss []*server) {
	sort.Slice(ss, func(i, j int) bool { return ss[i].cfg.Name < ss[j].cfg.Name })
}

// list returns the current servers (the slice is never changed in
// place).
func (m *Manager) list() []*server {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.servers
}

// Tools returns the tools of the servers that are ready, and starts in
// the background those not started yet (or due a restart). It never
// waits for a server.
func (m *Manager) Tools() []tools.Tool {
	if m.opts.OnUse != nil {
		m.opts.OnUse()
	}
	m.mu.Lock()
	m.used = true
	servers := m.servers
	m.mu.Unlock()
	var out []tools.Tool
	for _, s := range servers {
		out = append(out, s.need()...)
	}
	return out
}

// Start starts in the background the servers not started yet, as the
// first listing of tools would (and asks the project file's gate to
// check the file): the host calls it when the sidebar opens, so servers
// are ready, or nearly, by the first request. It never waits.
func (m *Manager) Start() { m.Tools() }

// Starting names the servers on their first start: started and neither
// ready nor failed yet. A thread's first request may wait for them,
// briefly (WaitStarted); a restart after a failure is not waited for.
func (m *Manager) Starting() []string {
	var out []string
	for _, s := range m.list() {
		s.mu.Lock()
		if s.state == StateStarting && !s.startedOnce && !s.retired {
			out = append(out, s.cfg.Name)
		}
		s.mu.Unlock()
	}
	return out
}

// WaitStarted returns once none of the servers named is on its first
// start any more (each is ready or failed), or when ctx ends.
func (m *Manager) WaitStarted(ctx context.Context, names []string) {
	for {
		m.mu.Lock()
		wake := m.wake // taken before looking, so no change is missed
		m.mu.Unlock()
		if !anyOf(m.Starting(), names) {
			return
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return
		}
	}
}

// anyOf reports whether some of names is in list.
func anyOf(list, names []string) bool {
	for _, n := range names {
		if slices.Contains(list, n) {
			return true
		}
	}
	return false
}

// SetProjectServers replaces the servers of the project file (nil: none,
// the file is not trusted). A setup() server of the same name wins; the
// project's is listed as shadowed. A server whose configuration did not
// change keeps running; the others stop, and new ones start at once when
// tools were already listed.
func (m *Manager) SetProjectServers(cfgs []ServerConfig) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	old := map[string]*server{}
	var next []*server
	setup := map[string]bool{}
	for _, s := range m.servers {
		if s.cfg.source() == SourceProject {
			old[s.cfg.Name] = s
		} else {
			setup[s.cfg.Name] = true
			next = append(next, s)
		}
	}
	var shadowed []ServerConfig
	var added []*server
	for _, c := range cfgs {
		c.Source = SourceProject
		if setup[c.Name] {
			shadowed = append(shadowed, c)
			continue
		}
		if s, ok := old[c.Name]; ok && reflect.DeepEqual(s.cfg, c) {
			delete(old, c.Name)
			next = append(next, s)
			continue
		}
		s := &server{cfg: c, m: m}
		next = append(next, s)
		added = append(added, s)
	}
	changed := len(added) > 0 || len(old) > 0 || !reflect.DeepEqual(shadowed, m.shadowed)
	if !changed { // the gate checks often; nothing to redraw
		m.mu.Unlock()
		return
	}
	sortServers(next)
	m.servers, m.shadowed = next, shadowed
	used := m.used
	m.mu.Unlock()
	for _, s := range old {
		s.retire()
	}
	if used {
		for _, s := range added {
			s.need()
		}
	}
	m.changed()
}

// State is where a server is in its life.
type State string

const (
	StateIdle     State = "idle"
	StateStarting State = "starting"
	StateReady    State = "ready"
	StateFailed   State = "failed"
	StateStopped  State = "stopped"
	// StateShadowed is a project server that a setup() server of the
	// same name replaces; it never starts.
	StateShadowed State = "shadowed"
)

// Status is what :Magenta mcp and :checkhealth show about a server.
type Status struct {
	Name      string   `msgpack:"name" json:"name"`
	Source    string   `msgpack:"source" json:"source"` // SourceSetup or SourceProject
	Transport string   `msgpack:"transport" json:"transport"`
	State     State    `msgpack:"state" json:"state"`
	Tools     []string `msgpack:"tools" json:"tools"`
	Warnings  []string `msgpack:"warnings" json:"warnings"`
	LastError string   `msgpack:"last_error" json:"last_error"`
	PID       int      `msgpack:"pid" json:"pid"`
}

// Status lists every server's state, sorted by name, then the shadowed
// project servers.
func (m *Manager) Status() []Status {
	m.mu.Lock()
	servers, shadowed := m.servers, m.shadowed
	m.mu.Unlock()
	out := make([]Status, 0, len(servers)+len(shadowed))
	for _, s := range servers {
		out = append(out, s.status())
	}
	for _, c := range shadowed {
		out = append(out, Status{Name: c.Name, Source: SourceProject, Transport: c.transportName(), State: StateShadowed,
			Tools: []string{}, Warnings: []string{},
			LastError: "setup() configures a server of the same name, which is used instead"})
	}
	return out
}

// Progress is a server the thread's header mentions: one starting, or
// one that failed and is not ready again yet.
type Progress struct {
	Name   string
	Failed bool
}

// Progress lists the servers starting or failed, by name. Cheap: it is
// asked for every frame.
func (m *Manager) Progress() []Progress {
	var out []Progress
	for _, s := range m.list() {
		s.mu.Lock()
		st := s.state
		s.mu.Unlock()
		switch st {
		case StateStarting:
			out = append(out, Progress{Name: s.cfg.Name})
		case StateFailed:
			out = append(out, Progress{Name: s.cfg.Name, Failed: true})
		}
	}
	return out
}

// Close stops every server (killing stdio servers' process groups) and
// waits for their goroutines.
func (m *Manager) Close() {
	m.mu.Lock()
	m.closed = true
	servers := m.servers
	m.mu.Unlock()
	m.cancel()
	for _, s := range servers {
		s.stop()
	}
	m.wg.Wait()
	m.gateway.close()
}

func (m *Manager) changed() {
	m.mu.Lock()
	close(m.wake)
	m.wake = make(chan struct{})
	m.mu.Unlock()
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
