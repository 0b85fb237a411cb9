package hooks

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
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/magenta-nvim/magenta/pkg/approval"
	"github.com/magenta-nvim/magenta/pkg/mcp/project"
)

// KindTrust is the approval kind of the question whether to run a
// workspace's hooks. Like the .mcp.json question it is asked of the
// workspace (no ThreadID), and every thread draws it.
const KindTrust = "hooks_project"

// StoreFile is the trust store's name under stdpath("data")/magenta/.
const StoreFile = "hooks-trust.json"

// MaxFileBytes bounds a settings file magenta reads.
const MaxFileBytes = 1 << 20

// State is where the workspace's hooks stand.
type State string

const (
	StateOff       State = "off"       // hooksProjectFile = false: never read
	StateNotRead   State = "not read"  // no message was sent yet
	StateAbsent    State = "absent"    // no settings file, or none with hooks
	StateWaiting   State = "waiting"   // the question is in the sidebar
	StateTrusted   State = "trusted"   // they run
	StateUntrusted State = "untrusted" // NO this session, or :Magenta hooks-untrust
	StateMalformed State = "malformed" // none of them runs; Problem says why
)

// Status is what :Magenta hooks says about the workspace's files.
type Status struct {
	Files   []string `msgpack:"files"`
	State   State    `msgpack:"state"`
	Problem string   `msgpack:"problem"`
	// Store is where a YES is remembered ("": for the session only).
	Store string `msgpack:"store"`
}

// GateOptions configure a Gate.
type GateOptions struct {
	// Workspace is the directory whose .claude/settings*.json are read
	// (its real path: a symlinked checkout is the same workspace).
	Workspace string
	// Off: the files are never read (hooksProjectFile = false).
	Off bool
	// Store remembers YES answers; nil: for the session only.
	Store *project.Store
	// Broker asks the user.
	Broker *approval.Broker
	// How says how workspace hooks would run now (confined or not), for
	// the question; nil: not said.
	How func() string
	// Warn tells the user about a malformed file or a store that cannot
	// be written; OnChange says the status changed. Neither may block.
	Warn     func(string)
	OnChange func()
}

// Gate reads the workspace's settings files when asked (Check: at every
// message the user sends), asks the user to trust their hooks, and
// hands out the hooks only while trusted. Its methods never block; the
// work runs on its goroutine, one operation at a time.
type Gate struct {
	opts   GateOptions
	wake   chan struct{}
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}

	mu      sync.Mutex
	queue   []op
	state   State
	problem string
	hash    string               // the digest of the fingerprint the state is about
	read    []Hook               // what the files hold, trusted or not
	ignored []string             // what they hold that magenta does not run
	trusted *project.Fingerprint // what the running hooks were trusted as
	denied  map[string]bool      // digests answered NO this session
	session map[string]bool      // digests trusted when the store could not be written
	// held are the hooks last trusted while what replaced them waits
	// for an answer or is malformed: Hooks hands them out and Verify
	// refuses them, so a trusted PreToolUse gate holds calls back rather
	// than opening when the agent rewrites it (nil otherwise).
	held []Hook
	// withdraw ends the question being asked (nil when none is): a
	// hooks-trust or hooks-untrust given while it was being put up
	// answers it instead.
	withdraw context.CancelFunc
}

type op int

const (
	opCheck op = iota
	opTrust
	opUntrust
)

// NewGate starts a gate; Close stops it.
func NewGate(opts GateOptions) *Gate {
	ctx, cancel := context.WithCancel(context.Background())
	g := &Gate{opts: opts, wake: make(chan struct{}, 1), ctx: ctx, cancel: cancel, done: make(chan struct{}),
		state: StateNotRead, denied: map[string]bool{}, session: map[string]bool{}}
	if opts.Off {
		g.state = StateOff
		close(g.done)
		return g
	}
	go g.run()
	return g
}

// Files are the settings files' paths.
func (g *Gate) Files() []string {
	return []string{filepath.Join(g.opts.Workspace, SettingsFile), filepath.Join(g.opts.Workspace, LocalSettingsFile)}
}

// Check reads the files again soon. Checks coalesce.
func (g *Gate) Check() {
	if !g.opts.Off {
		g.enqueue(opCheck)
	}
}

// Trust trusts the hooks as they are now (:Magenta hooks-trust); a
// pending question is answered YES.
func (g *Gate) Trust() { g.command(opTrust, approval.Allow) }

// Untrust stops the hooks and forgets the trust (:Magenta
// hooks-untrust); a pending question is answered NO.
func (g *Gate) Untrust() { g.command(opUntrust, approval.Deny) }

func (g *Gate) command(o op, answer approval.Decision) {
	if g.opts.Off {
		g.warn("the workspace's .claude/settings.json hooks are not read (hooksProjectFile = false)")
		return
	}
	if b := g.opts.Broker; b != nil {
		for _, r := range b.Pending("") {
			if r.Kind == KindTrust && r.ThreadID == "" && b.Answer(r.ID, answer) {
				return
			}
		}
	}
	g.enqueue(o)
}

func (g *Gate) enqueue(o op) {
	g.mu.Lock()
	if o != opCheck || len(g.queue) == 0 || g.queue[len(g.queue)-1] != opCheck {
		g.queue = append(g.queue, o)
	}
	if o != opCheck && g.withdraw != nil {
		g.withdraw()
	}
	g.mu.Unlock()
	select {
	case g.wake <- struct{}{}:
	default:
	}
}

// Hooks are the workspace's hooks while the user trusts them; while a
// change of trusted hooks waits for an answer (or is malformed), the
// hooks trusted last, which Verify refuses; nil otherwise.
func (g *Gate) Hooks() []Hook {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.state != StateTrusted {
		return g.held
	}
	return g.read
}

// Read is what the files hold (trusted or not) and what of it magenta
// does not run, as last read.
func (g *Gate) Read() ([]Hook, []string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.read, g.ignored
}

// Status says where the files stand.
func (g *Gate) Status() Status {
	g.mu.Lock()
	defer g.mu.Unlock()
	st := Status{Files: g.Files(), State: g.state, Problem: g.problem}
	if g.opts.Store != nil {
		st.Store = g.opts.Store.Path()
	}
	return st
}

// Verify checks, before a workspace hook runs, that the scripts its
// command names are what the user trusted. When they are not, it says
// what changed and the gate reads the files again (and asks).
func (g *Gate) Verify(h Hook) error {
	g.mu.Lock()
	fp, state := g.trusted, g.state
	g.mu.Unlock()
	if fp == nil && (state == StateWaiting || state == StateMalformed) {
		return errors.New("the workspace's hooks changed since you trusted them; they are asked about again (:Magenta hooks)")
	}
	if fp == nil {
		return errors.New("the workspace's hooks are not trusted")
	}
	var changed []string
	for _, s := range scripts(h.Command, g.opts.Workspace) {
		if was, ok := fp.Runs[runKey(s.Path)]; !ok || was != s.State {
			changed = append(changed, s.Path)
		}
	}
	if len(changed) == 0 {
		return nil
	}
	g.Check()
	return fmt.Errorf("%s changed since you trusted this workspace's hooks; they are asked about again", strings.Join(changed, ", "))
}

// Close withdraws a pending question and stops the gate.
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
		}
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

func (g *Gate) safely(o op) {
	defer func() {
		if p := recover(); p != nil {
			slog.Error("hooks gate panicked", "panic", p, "stack", string(debug.Stack()))
			g.warn(fmt.Sprintf("internal error reading the workspace's hooks (a bug; see the log): %v", p))
		}
	}()
	g.do(o)
}

// do carries out one operation against the files as they are now.
func (g *Gate) do(o op) {
	hooks, ignored, present, err := g.readFiles()
	if err != nil {
		g.warn(fmt.Sprintf("%v; none of the workspace's hooks runs (:Magenta hooks)", err))
		g.set(StateMalformed, "", err.Error(), nil, nil, nil)
		return
	}
	if len(hooks) == 0 {
		g.set(StateAbsent, "", "", nil, ignored, nil)
		if o == opTrust {
			g.warn("this workspace's .claude/settings.json and settings.local.json hold no hooks to trust")
		}
		return
	}
	fp := fingerprint(hooks, g.opts.Workspace)
	hash := fp.Digest()
	switch o {
	case opUntrust:
		if g.opts.Store != nil {
			if err := g.opts.Store.Forget(g.opts.Workspace); err != nil {
				g.warn(fmt.Sprintf("could not forget the trust in %s: %v", g.opts.Store.Path(), err))
			}
		}
		g.mu.Lock()
		g.denied[hash], g.session[hash] = true, false
		g.mu.Unlock()
		g.set(StateUntrusted, hash, "", hooks, ignored, nil)
		return
	case opTrust:
		g.trust(fp)
		g.set(StateTrusted, hash, "", hooks, ignored, &fp)
		return
	}
	g.mu.Lock()
	unchanged := hash == g.hash && g.state != StateNotRead && g.state != StateAbsent && g.state != StateMalformed
	denied := g.denied[hash]
	g.mu.Unlock()
	if unchanged {
		return
	}
	old, trusted := g.trustedBefore(fp)
	switch {
	case trusted:
		g.set(StateTrusted, hash, "", hooks, ignored, &fp)
	case denied:
		g.set(StateUntrusted, hash, "", hooks, ignored, nil)
	default:
		g.ask(fp, hooks, ignored, present, old)
	}
}

// readFiles reads both settings files; present names those that exist.
func (g *Gate) readFiles() (hooks []Hook, ignored, present []string, err error) {
	for _, name := range []string{SettingsFile, LocalSettingsFile} {
		path := filepath.Join(g.opts.Workspace, name)
		data, err := readSettings(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, nil, nil, fmt.Errorf("%s: %v", path, err)
		}
		present = append(present, path)
		hs, ig, err := ParseFile(data, name)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("%s: %v", path, err)
		}
		hooks, ignored = append(hooks, hs...), append(ignored, prefixed(name, ig)...)
	}
	return hooks, ignored, present, nil
}

func prefixed(name string, notes []string) []string {
	out := make([]string, len(notes))
	for i, n := range notes {
		out[i] = name + ": " + n
	}
	return out
}

// readSettings reads a regular file of at most MaxFileBytes.
func readSettings(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	if fi.Size() > MaxFileBytes {
		return nil, fmt.Errorf("%d bytes; a settings file is at most %d", fi.Size(), MaxFileBytes)
	}
	data, err := os.ReadFile(path)
	if err == nil && len(data) > MaxFileBytes {
		err = fmt.Errorf("more than %d bytes", MaxFileBytes)
	}
	return data, err
}

// runKey is a script's key in a Fingerprint's Runs.
func runKey(path string) string { return "script " + path }

// fingerprint is what a trust covers: every hook as parsed (not the
// files' bytes, so an edit of their permissions asks nothing) and the
// state of every workspace script a command names.
func fingerprint(hooks []Hook, ws string) project.Fingerprint {
	h := sha256.New()
	fp := project.Fingerprint{Runs: map[string]string{}}
	for _, x := range hooks {
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00%d\x00%s\n", x.Source, x.Event, x.Matcher, x.Timeout, x.Command)
		for _, s := range scripts(x.Command, ws) {
			fp.Runs[runKey(s.Path)] = s.State
		}
	}
	fp.File = hex.EncodeToString(h.Sum(nil))
	return fp
}

// changes says what differs from old (what the user trusted before).
func changes(now, old project.Fingerprint) []string {
	var out []string
	if now.File != old.File {
		out = append(out, "the hooks changed")
	}
	keys := make([]string, 0, len(now.Runs))
	for k := range now.Runs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		path := strings.TrimPrefix(k, "script ")
		was, ok := old.Runs[k]
		switch {
		case !ok:
			if now.File == old.File {
				out = append(out, path+" was not there")
			}
		case was != now.Runs[k] && now.Runs[k] == "missing":
			out = append(out, path+" was removed")
		case was == "missing" && now.Runs[k] != "missing":
			out = append(out, path+" was created")
		case was != now.Runs[k]:
			out = append(out, path+" changed")
		}
	}
	return out
}

// trustedBefore reports whether fp is trusted (this session, or in the
// store); otherwise it returns what was trusted before, if anything.
func (g *Gate) trustedBefore(fp project.Fingerprint) (*project.Fingerprint, bool) {
	hash := fp.Digest()
	g.mu.Lock()
	session, last := g.session[hash], g.trusted
	g.mu.Unlock()
	if session {
		return nil, true
	}
	if g.opts.Store != nil {
		old, ok, err := g.opts.Store.Trusted(g.opts.Workspace)
		if err != nil {
			slog.Warn("hooks trust store", "err", err)
		}
		if ok && old.Digest() == hash {
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
func (g *Gate) trust(fp project.Fingerprint) {
	hash := fp.Digest()
	g.mu.Lock()
	g.session[hash], g.denied[hash] = true, false
	g.mu.Unlock()
	if g.opts.Store == nil {
		return
	}
	if err := g.opts.Store.Trust(g.opts.Workspace, fp); err != nil {
		g.warn(fmt.Sprintf("could not remember the trust of this workspace's hooks (trusted until Neovim exits): %v", err))
	}
}

// ask puts the question in the sidebar and waits for the answer (or for
// Close). Nothing of the files runs meanwhile.
func (g *Gate) ask(fp project.Fingerprint, hooks []Hook, ignored, present []string, old *project.Fingerprint) {
	hash := fp.Digest()
	g.set(StateWaiting, hash, "", hooks, ignored, nil)
	if g.opts.Broker == nil {
		g.set(StateUntrusted, hash, "", hooks, ignored, nil)
		return
	}
	var changed []string
	if old != nil {
		changed = changes(fp, *old)
	}
	how := ""
	if g.opts.How != nil {
		how = g.opts.How()
	}
	ctx, cancel := context.WithCancel(g.ctx)
	defer cancel()
	g.mu.Lock()
	answered := slices.ContainsFunc(g.queue, func(o op) bool { return o != opCheck })
	if !answered {
		g.withdraw = cancel
	}
	g.mu.Unlock()
	if answered {
		return // a trust or untrust given meanwhile answers (it runs next)
	}
	d, err := g.opts.Broker.Ask(ctx, approval.Request{
		Kind: KindTrust, Subject: Question(present, hooks, ignored, fp, changed), NoAlways: true, Reason: reason(how, len(changed) > 0),
	})
	g.mu.Lock()
	g.withdraw = nil
	g.mu.Unlock()
	if err != nil {
		return // closing, or withdrawn for the command queued
	}
	if d == approval.Deny {
		g.mu.Lock()
		g.denied[hash] = true
		g.mu.Unlock()
		g.set(StateUntrusted, hash, "", hooks, ignored, nil)
		return
	}
	g.trust(fp)
	g.set(StateTrusted, hash, "", hooks, ignored, &fp)
}

// set records the state; trusted is the fingerprint the hooks run
// under (nil unless trusted).
func (g *Gate) set(state State, hash, problem string, hooks []Hook, ignored []string, trusted *project.Fingerprint) {
	g.mu.Lock()
	changed := g.state != state || g.hash != hash || g.problem != problem
	switch {
	case state == StateWaiting || state == StateMalformed:
		if g.state == StateTrusted {
			g.held = g.read
		}
	default:
		g.held = nil
	}
	g.state, g.hash, g.problem, g.read, g.ignored, g.trusted = state, hash, problem, hooks, ignored, trusted
	g.mu.Unlock()
	if changed && g.opts.OnChange != nil {
		g.opts.OnChange()
	}
}

func (g *Gate) warn(msg string) {
	if g.opts.Warn != nil {
		g.opts.Warn(msg)
	}
}
