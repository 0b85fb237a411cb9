package project

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/magenta-nvim/magenta/pkg/approval"
	"github.com/magenta-nvim/magenta/pkg/mcp"
)

// KindProject is the approval kind of the question whether to trust a
// project file. It is asked of the workspace, not of one thread: its
// request has no ThreadID, and every thread draws it.
const KindProject = "mcp_project"

// State is where the project file stands.
type State string

const (
	StateOff       State = "off"       // mcpProjectFile = false: never read
	StateNotRead   State = "not read"  // no thread has needed tools yet
	StateAbsent    State = "absent"    // the workspace has no .mcp.json
	StateWaiting   State = "waiting"   // the question is in the sidebar
	StateTrusted   State = "trusted"   // its servers run
	StateUntrusted State = "untrusted" // NO this session, or :Magenta mcp-untrust
	StateMalformed State = "malformed" // nothing of it runs; Problem says why
)

// Status is what :Magenta mcp says about the project file.
type Status struct {
	File    string `msgpack:"file" json:"file"`
	State   State  `msgpack:"state" json:"state"`
	Problem string `msgpack:"problem" json:"problem"`
	// Store is where a YES is remembered ("" : for the session only).
	Store string `msgpack:"store" json:"store"`
}

// Options configure a Gate.
type Options struct {
	// Workspace is the directory whose .mcp.json is read.
	Workspace string
	// Off: the file is never read (mcpProjectFile = false).
	Off bool
	// Store remembers YES answers; nil: for the session only.
	Store *Store
	// Broker asks the user.
	Broker *approval.Broker
	// SetServers hands the trusted file's servers to the manager (nil:
	// none may run). Called from the gate's goroutine.
	SetServers func([]mcp.ServerConfig)
	// Lookup reads the environment for ${VAR} (os.LookupEnv when nil).
	Lookup func(string) (string, bool)
	// Warn tells the user about a malformed file or a store that cannot
	// be written. OnChange says the status changed (redraw). Both must
	// not block.
	Warn     func(string)
	OnChange func()
}

// Gate reads the project file when tools are first needed (and again on
// later needs, to notice a change), asks the user to trust it, and hands
// its servers to the manager only when trusted. Its methods never block;
// the work runs on its goroutine, one operation at a time.
type Gate struct {
	opts Options
	file string
	// wake signals (capacity 1) that queue has operations; they run in
	// the order the user gave them.
	wake   chan struct{}
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}

	// ws is the workspace's real path (what lies inside it is hashed);
	// hasher remembers big files' hashes between checks.
	ws     string
	hasher *hasher

	mu      sync.Mutex
	queue   []op
	state   State
	problem string
	hash    string          // the fingerprint's digest the state is about
	last    *Fingerprint    // the last fingerprint trusted this session
	denied  map[string]bool // digests answered NO this session
	session map[string]bool // digests trusted when the store could not be written
}

type op int

const (
	opCheck op = iota
	opTrust
	opUntrust
)

// NewGate starts a gate; Close stops it.
func NewGate(opts Options) *Gate {
	if opts.Lookup == nil {
		opts.Lookup = os.LookupEnv
	}
	ctx, cancel := context.WithCancel(context.Background())
	g := &Gate{
		opts: opts, file: filepath.Join(opts.Workspace, FileName), wake: make(chan struct{}, 1),
		ctx: ctx, cancel: cancel, done: make(chan struct{}),
		state: StateNotRead, denied: map[string]bool{}, session: map[string]bool{},
		ws: opts.Workspace, hasher: newHasher(),
	}
	if real, err := filepath.EvalSymlinks(opts.Workspace); err == nil {
		g.ws = real
	}
	if opts.Off {
		g.state = StateOff
		close(g.done)
		return g
	}
	go g.run()
	return g
}

// File is the project file's path.
func (g *Gate) File() string { return g.file }

// Check reads the file again soon (tools are needed). Checks coalesce.
func (g *Gate) Check() {
	if g.opts.Off {
		return
	}
	g.enqueue(opCheck)
}

// enqueue queues o behind the operations already waiting; a check
// right behind another is dropped (they coalesce).
func (g *Gate) enqueue(o op) {
	g.mu.Lock()
	if o != opCheck || len(g.queue) == 0 || g.queue[len(g.queue)-1] != opCheck {
		g.queue = append(g.queue, o)
	}
	g.mu.Unlock()
	select {
	case g.wake <- struct{}{}:
	default:
	}
}

// Trust trusts the file as it is now (:Magenta mcp-trust); a pending
// question is answered YES.
func (g *Gate) Trust() { g.command(opTrust, approval.Allow) }

// Untrust stops the file's servers and forgets the trust (:Magenta
// mcp-untrust); a pending question is answered NO.
func (g *Gate) Untrust() { g.command(opUntrust, approval.Deny) }

func (g *Gate) command(o op, answer approval.Decision) {
	if g.opts.Off {
		if g.opts.Warn != nil {
			g.opts.Warn("the project's .mcp.json is not read (mcpProjectFile = false)")
		}
		return
	}
	if g.opts.Broker != nil {
		for _, r := range g.opts.Broker.Pending("") {
			if r.Kind == KindProject && r.ThreadID == "" && g.opts.Broker.Answer(r.ID, answer) {
				return
			}
		}
	}
	g.enqueue(o)
}

// Status says where the file stands.
func (g *Gate) Status() Status {
	g.mu.Lock()
	defer g.mu.Unlock()
	st := Status{File: g.file, State: g.state, Problem: g.problem}
	if g.opts.Store != nil {
		st.Store = g.opts.Store.Path()
	}
	return st
}

// Close withdraws a pending question and stops the gate's goroutine.
func (g *Gate) Close() {
	g.cancel()
	<-g.done
}

func (g *Gate) run() {
	defer close(g.done)
	for {
		select {
		case <-g.ctx.Done():
			return
		case <-g.wake:
			for {
				g.mu.Lock()
				if len(g.queue) == 0 || g.ctx.Err() != nil {
					g.mu.Unlock()
					break
				}
				o := g.queue[0]
				g.queue = g.queue[1:]
				g.mu.Unlock()
				g.safely(o)
			}
		}
	}
}

func (g *Gate) safely(o op) {
	defer func() {
		if p := recover(); p != nil {
			slog.Error("mcp project gate panicked", "panic", p, "stack", string(debug.Stack()))
			g.warn(fmt.Sprintf("internal error reading %s (a bug; see the log): %v", g.file, p))
		}
	}()
	g.do(o)
}

func (g *Gate) do(o op) {
	data, fileHash, err := g.read()
	if errors.Is(err, fs.ErrNotExist) {
		g.set(StateAbsent, "", "", nil, nil)
		if o == opTrust {
			g.warn(fmt.Sprintf("there is no %s to trust", g.file))
		}
		return
	}
	if err != nil {
		g.malformed(fileHash, err.Error())
		return
	}
	servers, parseErr := Parse(data, g.opts.Workspace, g.opts.Lookup)
	// The trust covers the file and what its servers run now.
	hash := fileHash
	var fp Fingerprint
	var per map[string][]Ran
	if parseErr == nil {
		fp, per = fingerprint(fileHash, servers, g.ws, g.hasher)
		hash = fp.Digest()
	}
	if o == opUntrust {
		if g.opts.Store != nil {
			if err := g.opts.Store.Forget(g.opts.Workspace); err != nil {
				g.warn(fmt.Sprintf("could not forget the trust in %s: %v", g.opts.Store.Path(), err))
			}
		}
		g.mu.Lock()
		g.denied[hash], g.session[hash], g.last = true, false, nil
		g.mu.Unlock()
		g.set(StateUntrusted, hash, "", nil, nil)
		return
	}
	g.mu.Lock()
	unchanged := hash == g.hash && g.state != StateNotRead && g.state != StateAbsent
	g.mu.Unlock()
	if o == opCheck && unchanged {
		return
	}
	if parseErr != nil {
		g.malformed(fileHash, parseErr.Error())
		return
	}
	if o == opTrust {
		g.trust(fp)
		g.set(StateTrusted, hash, "", servers, per)
		return
	}
	old, trusted := g.trusted(fp)
	if trusted {
		g.set(StateTrusted, hash, "", servers, per)
		return
	}
	g.mu.Lock()
	denied := g.denied[hash]
	g.mu.Unlock()
	if denied {
		g.set(StateUntrusted, hash, "", nil, nil)
		return
	}
	var changes []string
	if old != nil {
		changes = fp.Changes(*old)
	}
	g.ask(fp, servers, per, changes)
}

// Reason is the question's reason (below the servers).
const (
	reasonNew     = "this workspace's .mcp.json starts these MCP servers (a command runs in the workspace with PATH, HOME, the locale and toolchain variables, plus the env shown; nothing else of your environment); start them? (YES is remembered for this workspace until the file or what it runs changes, NO until Neovim exits; :Magenta mcp-trust / mcp-untrust change it)"
	reasonChanged = "what this workspace's .mcp.json starts changed since you trusted it (above); start these MCP servers? (a command gets PATH, HOME, the locale and toolchain variables plus the env shown; YES is remembered until the next change, NO until Neovim exits)"
)

// Question is the subject of the trust question: the file, what changed
// since the last trust, and every server as written (see
// Server.Describe) with what it runs.
func Question(file string, servers []Server, per map[string][]Ran, changes []string) string {
	lines := []string{Visible(file)}
	if len(changes) > 0 {
		lines = append(lines, "changed since you trusted it:")
		for _, c := range changes {
			lines = append(lines, "  ! "+c)
		}
	}
	for _, s := range servers {
		lines = append(lines, s.Describe()...)
		if l := describeRuns(per[s.Name]); l != "" {
			lines = append(lines, l)
		}
	}
	if len(servers) == 0 {
		lines = append(lines, "(no servers)")
	}
	return strings.Join(lines, "\n")
}

// ask puts the question in the sidebar and waits for the answer (or for
// Close). A file (or what it runs) that changed before the answer is
// read again at the next check; the answer is about what was shown, and
// the manager checks it again before starting a server.
func (g *Gate) ask(fp Fingerprint, servers []Server, per map[string][]Ran, changes []string) {
	hash := fp.Digest()
	g.set(StateWaiting, hash, "", nil, nil)
	if g.opts.Broker == nil { // nobody to ask: not trusted
		g.set(StateUntrusted, hash, "", nil, nil)
		return
	}
	reason := reasonNew
	if len(changes) > 0 {
		reason = reasonChanged
	}
	d, err := g.opts.Broker.Ask(g.ctx, approval.Request{
		Kind: KindProject, Subject: Question(g.file, servers, per, changes), NoAlways: true, Reason: reason,
	})
	if err != nil {
		return // closing
	}
	if d == approval.Deny {
		g.mu.Lock()
		g.denied[hash] = true
		g.mu.Unlock()
		g.set(StateUntrusted, hash, "", nil, nil)
		return
	}
	g.trust(fp)
	g.set(StateTrusted, hash, "", servers, per)
}

// trusted reports whether fp is trusted (this session, or in the
// store), and otherwise returns what was trusted last, if anything, to
// say what changed.
func (g *Gate) trusted(fp Fingerprint) (*Fingerprint, bool) {
	hash := fp.Digest()
	g.mu.Lock()
	session, last := g.session[hash], g.last
	g.mu.Unlock()
	if session {
		return nil, true
	}
	if g.opts.Store != nil {
		old, ok, err := g.opts.Store.Trusted(g.opts.Workspace)
		if err != nil {
			slog.Warn("mcp trust store", "err", err)
		}
		if ok && old.Digest() == hash {
			g.mu.Lock()
			g.last = &fp
			g.mu.Unlock()
			return nil, true
		}
		if ok {
			return &old, false
		}
	}
	return last, false
}

// trust remembers a YES: in the store, or for the session when there is
// none or it cannot be written.
func (g *Gate) trust(fp Fingerprint) {
	hash := fp.Digest()
	g.mu.Lock()
	g.session[hash], g.denied[hash], g.last = true, false, &fp
	g.mu.Unlock()
	if g.opts.Store == nil {
		return
	}
	if err := g.opts.Store.Trust(g.opts.Workspace, fp); err != nil {
		g.warn(fmt.Sprintf("could not remember the trust of %s (trusted until Neovim exits): %v", g.file, err))
	}
}

// Verify checks, before the manager starts (or restarts) a project
// server, that what it runs is still what the user trusted: the
// executable and the workspace files, hashed afresh. When it is not, it
// says what changed, and the gate reads the file again to ask.
func (g *Gate) Verify(cfg mcp.ServerConfig) error {
	if cfg.Source != mcp.SourceProject || cfg.Command == "" {
		return nil
	}
	rs := runs(cfg, g.ws, g.hasher, true)
	if serverDigest(rs) == cfg.Trusted {
		return nil
	}
	g.hasher.forget() // the next check hashes every file again
	g.Check()
	now := Fingerprint{Runs: map[string]string{}}
	for _, x := range rs {
		now.Runs[cfg.Name+": "+x.What] = x.Path + "\t" + x.State
	}
	// What the user last trusted (which is what the manager was handed)
	// says what changed.
	was := Fingerprint{Runs: map[string]string{}}
	g.mu.Lock()
	if g.last != nil {
		for k, v := range g.last.Runs {
			if strings.HasPrefix(k, cfg.Name+": ") {
				was.Runs[k] = v
			}
		}
	}
	g.mu.Unlock()
	var changes []string
	if len(was.Runs) > 0 {
		changes = now.Changes(was)
	}
	if len(changes) == 0 {
		changes = []string{"what it runs changed since you trusted it"}
	}
	return fmt.Errorf("not started: %s; %s asks again", strings.Join(changes, "; "), FileName)
}

func (g *Gate) malformed(hash, problem string) {
	g.set(StateMalformed, hash, problem, nil, nil)
	g.warn(fmt.Sprintf("%s: %s; none of its MCP servers was started", g.file, problem))
}

// set records the state and hands the servers (nil: none) on, each with
// the digest of what it runs (per) as trusted.
func (g *Gate) set(state State, hash, problem string, servers []Server, per map[string][]Ran) {
	var cfgs []mcp.ServerConfig
	for _, s := range servers {
		c := s.Config
		if c.Command != "" {
			c.Trusted = serverDigest(per[s.Name])
		}
		cfgs = append(cfgs, c)
	}
	g.mu.Lock()
	changed := g.state != state || g.hash != hash || g.problem != problem
	g.state, g.hash, g.problem = state, hash, problem
	g.mu.Unlock()
	if g.opts.SetServers != nil {
		g.opts.SetServers(cfgs)
	}
	if changed && g.opts.OnChange != nil {
		g.opts.OnChange()
	}
}

// read reads the file (a regular file of at most MaxFileBytes) and
// hashes it.
func (g *Gate) read() ([]byte, string, error) {
	fi, err := os.Stat(g.file)
	if err != nil {
		return nil, "", err
	}
	if !fi.Mode().IsRegular() {
		return nil, "", errors.New("not a regular file")
	}
	if fi.Size() > MaxFileBytes {
		return nil, "", fmt.Errorf("%d bytes; a project file is at most %d", fi.Size(), MaxFileBytes)
	}
	data, err := os.ReadFile(g.file)
	if err != nil {
		return nil, "", err
	}
	if len(data) > MaxFileBytes {
		return nil, "", fmt.Errorf("more than %d bytes", MaxFileBytes)
	}
	sum := sha256.Sum256(data)
	return data, hex.EncodeToString(sum[:]), nil
}

func (g *Gate) warn(msg string) {
	if g.opts.Warn != nil {
		g.opts.Warn(msg)
	}
}
