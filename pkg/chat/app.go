package chat

import (
	"context"
	"fmt"
	"github.com/magenta-nvim/magenta/pkg/approval"
	"log/slog"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/chat/view"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/prompts"
	"github.com/magenta-nvim/magenta/pkg/threadstore"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// ThreadListKey is the display key of the thread list page.
const ThreadListKey = "threads"

// Screen is the display buffer seen from the app.
type Screen interface {
	Display
	// Show selects which published key the display buffer shows.
	Show(key string)
	// BindingAt resolves key at a 0-based line of what is shown.
	BindingAt(line int, key view.Key) (view.Action, bool)
	// Notify tells the user something outside the chat (vim.notify).
	Notify(msg string, level Level)
	// NotifyIfHidden notifies only when the display buffer is not in a
	// window (an approval waits and the sidebar is closed).
	NotifyIfHidden(msg string)
	// OpenFile opens path in a normal editor window (not the sidebar),
	// at line when it is positive.
	OpenFile(path string, line int)
}

// Level is the urgency of a notification.
type Level int

const (
	LevelInfo Level = iota
	LevelWarn
	LevelError
)

// AppDeps is what the app needs from outside.
type AppDeps struct {
	Screen       Screen
	Tools        *tools.Registry
	Env          *capabilities.Environment
	NewProvider  ProviderFactory
	SystemPrompt string
	// Broker holds approvals; nil when nothing asks. The app takes over
	// its change callback.
	Broker *approval.Broker
	// ContextFiles reads files the user attaches (see Deps).
	ContextFiles capabilities.FileIO
	// Terminals opens interactive commands' terminals (see Deps).
	Terminals Terminals
	// MCP reports MCP servers starting or failed (see Deps).
	MCP func() view.MCPLine
	// ToolServers: see Deps.
	ToolServers ToolServers
	// Observers are attached to every thread, sub-agents included: what
	// reacts to a turn (checkpoints, hooks) plugs in here (see Deps).
	Observers []Observer
	// Interceptors wrap every tool call of every thread, sub-agents
	// included (see Deps).
	Interceptors []tools.Interceptor
	// PromptCheck looks at what the user sends before it goes (see
	// Deps); sub-agents' tasks are not checked.
	PromptCheck PromptCheck
	// OnDeleted is told the id of a thread the user deleted (its
	// checkpoints go too); called on the app goroutine, must not block.
	OnDeleted func(id string)
	// Store saves threads and lists the saved ones (nil: not saved);
	// OpenEnv makes a saved Docker thread's environment (app_saved.go).
	Store   *threadstore.Store
	OpenEnv OpenEnvFunc
	// Prompts are the skills, commands and agents defined in files
	// (pkg/prompts): /commands expand at send, agents join the sub-agent
	// types. Nil: none. Nothing is read before the first need.
	Prompts *prompts.Library
}

// App owns the threads and which one is shown. Its methods enqueue work
// for its goroutine and are safe for concurrent use.
type App struct {
	ctx    context.Context
	cancel context.CancelFunc
	inbox  chan func()
	done   chan struct{}
	deps   AppDeps
	opts   config.Options

	// Owned by the app goroutine.
	threads []*Thread
	active  *Thread
	profile config.Profile
	listing bool
	agents  appAgents
	// opening holds saved threads whose environment is being made.
	opening map[string]bool

	// Written by thread goroutines, read by the app and by them.
	sumMu       sync.Mutex
	summaries   map[string]view.ThreadSummary
	listVersion uint64
	showingList bool
	activeID    string
	byID        map[string]*Thread
	// profiles answers threads' profile lookups (compaction_app.go).
	profiles profileBook
	// saved are the saved threads not running here, as last listed.
	saved []view.ThreadSummary
}

// NewApp starts the app with one empty thread on the first profile.
func NewApp(parent context.Context, opts config.Options, deps AppDeps) (*App, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(parent)
	a := &App{
		ctx: ctx, cancel: cancel, inbox: make(chan func(), inboxSize), done: make(chan struct{}),
		deps: deps, opts: opts, profile: opts.Profiles[0], summaries: map[string]view.ThreadSummary{},
		byID: map[string]*Thread{}, opening: map[string]bool{},
	}
	a.profiles.set(opts)
	if deps.Broker != nil {
		deps.Broker.SetOnChange(a.onApprovalChange)
	}
	var problems []string
	a.agents, problems = newAppAgents(opts, deps.Tools, deps.Prompts)
	go a.run()
	a.warnAgents(problems)
	a.do(func() { a.newThread() })
	return a, nil
}

// Send sends text in the active thread.
func (a *App) Send(text string) { a.do(func() { a.showActive(); a.active.Send(text) }) }

// AddContext attaches files to the active thread.
func (a *App) AddContext(paths []string) { a.do(func() { a.showActive(); a.active.AddContext(paths) }) }

// Abort aborts the active thread's turn.
func (a *App) Abort() { a.do(func() { a.active.Abort() }) }

// NewThread starts a thread and shows it.
func (a *App) NewThread() { a.do(func() { a.newThread() }) }

// NewThreadIn starts a thread that works in env (a Docker container, say)
// with systemPrompt, and shows it.
func (a *App) NewThreadIn(env *capabilities.Environment, systemPrompt string) {
	a.do(func() { a.newThreadIn(env, systemPrompt) })
}

// ShowThreads shows the thread list in the display buffer.
func (a *App) ShowThreads() { a.do(a.showThreads) }

// SelectThread shows the thread with id (or a unique id prefix).
func (a *App) SelectThread(id string) { a.do(func() { a.selectThread(id) }) }

// SetProfile switches the active thread, and new threads, to a profile.
func (a *App) SetProfile(name string) { a.do(func() { a.setProfile(name) }) }

// SetOptions applies new options (setup() called again): the profile
// list for :Magenta profile and new threads. Threads keep their profile
// until switched.
func (a *App) SetOptions(opts config.Options) {
	a.do(func() {
		a.opts = opts
		a.profiles.set(opts)
		var problems []string
		a.agents, problems = newAppAgents(opts, a.deps.Tools, a.deps.Prompts)
		a.warnAgents(problems)
		if p, ok := opts.Profile(a.profile.Name); ok {
			a.profile = p
		} else {
			a.profile = opts.Profiles[0]
		}
	})
}

// Key resolves a key pressed at a 0-based line of the display buffer.
func (a *App) Key(key view.Key, line int) { a.KeyOnFrame(key, line, 0) }

// frameScreen is a Screen that numbers the frames it sends, so a key
// resolves against the frame the editor showed when it was pressed.
type frameScreen interface {
	BindingOnFrame(frame, line int, key view.Key) (view.Action, bool)
}

// KeyOnFrame is Key for a key pressed while the display showed frame
// number frame (0: unknown): a frame drawn meanwhile — a timer line, a
// line added above — cannot change what the key means.
func (a *App) KeyOnFrame(key view.Key, line, frame int) {
	a.do(func() {
		var action view.Action
		var ok bool
		if fs, numbered := a.deps.Screen.(frameScreen); numbered && frame > 0 {
			action, ok = fs.BindingOnFrame(frame, line, key)
		} else {
			action, ok = a.deps.Screen.BindingAt(line, key)
		}
		switch {
		case !ok:
			// An approval key away from any approval answers nothing: the
			// cursor may be on a copy of a block the model wrote, and the
			// request that waits may be in another thread or out of view.
			a.explainApprovalKey(key)
		case action.Kind == view.ActionNotOffered:
			a.deps.Screen.Notify("magenta: "+action.Arg, LevelWarn)
		default:
			a.act(action)
		}
	})
}

// Refresh republishes what is shown (after the display buffer changed).
func (a *App) Refresh() {
	a.do(func() {
		if a.listing {
			a.showThreads()
			return
		}
		a.showActive()
		a.active.Refresh()
	})
}

// Close stops every thread and the app.
func (a *App) Close() {
	a.cancel()
	<-a.done
}

// ActiveThreadID returns the active thread's id (for tests and health).
func (a *App) ActiveThreadID() string {
	ch := make(chan string, 1)
	a.do(func() { ch <- a.active.ID })
	select {
	case id := <-ch:
		return id
	case <-a.done:
		return ""
	}
}

func (a *App) do(f func()) {
	select {
	case a.inbox <- f:
	case <-a.done:
	}
}

func (a *App) run() {
	defer close(a.done)
	for {
		select {
		case <-a.ctx.Done():
			for _, t := range a.threads {
				t.Close()
			}
			return
		case f := <-a.inbox:
			a.safely(f)
		}
	}
}

func (a *App) safely(f func()) {
	defer func() {
		if p := recover(); p != nil {
			slog.Error("app panicked", "panic", p, "stack", string(debug.Stack()))
			a.deps.Screen.Notify(fmt.Sprintf("magenta: internal error (a bug; see the log): %v", p), LevelError)
		}
	}()
	f()
}

func (a *App) newThread() { a.newThreadIn(a.deps.Env, a.deps.SystemPrompt) }

func (a *App) newThreadIn(env *capabilities.Environment, systemPrompt string) {
	t, err := NewThread(a.ctx, a.profile, a.threadDeps(env, systemPrompt))
	if err != nil {
		a.deps.Screen.Notify("magenta: "+err.Error(), LevelError)
		return
	}
	a.adopt(t)
}

// adopt makes t one of the app's threads, and the one shown.
func (a *App) adopt(t *Thread) {
	a.register(t)
	a.active = t
	a.showActive()
}

// register makes t one of the app's threads (listed, found by id).
func (a *App) register(t *Thread) {
	a.threads = append(a.threads, t)
	a.sumMu.Lock()
	a.byID[t.ID] = t
	a.sumMu.Unlock()
}

func (a *App) showActive() {
	a.listing = false
	a.sumMu.Lock()
	a.showingList, a.activeID = false, a.active.ID
	a.sumMu.Unlock()
	a.deps.Screen.Show(a.active.ID)
}

func (a *App) showThreads() {
	a.refreshSaved()
	a.listing = true
	a.setShowingList(true)
	a.publishList()
	a.deps.Screen.Show(ThreadListKey)
}

func (a *App) selectThread(id string) {
	match, candidates := a.findThread(id)
	if match == nil || match.ID != id {
		// A prefix: the open threads and the saved ones that start with
		// it count together — an open thread is not preferred over a
		// saved one the user may have meant.
		saved, more := a.resolveSaved(id)
		if saved != nil && saved.ID == id {
			a.openSaved(saved.ID)
			return
		}
		if match != nil {
			candidates = append(candidates, fmt.Sprintf("%s (%s)", match.ID, titleOr(a.summaryOf(match.ID).Title)))
		}
		if saved != nil {
			more = append(more, fmt.Sprintf("%s (%s)", saved.ID, titleOr(saved.Title)))
		}
		candidates = append(candidates, more...)
		if saved != nil && match == nil && len(candidates) == 1 {
			a.openSaved(saved.ID)
			return
		}
		if len(candidates) > 1 {
			match = nil
		}
	}
	switch {
	case match != nil:
	case len(candidates) > 1:
		a.deps.Screen.Notify(fmt.Sprintf("magenta: %d threads start with %q; give more of the id: %s",
			len(candidates), id, strings.Join(candidates, ", ")), LevelError)
		return
	default:
		a.deps.Screen.Notify(fmt.Sprintf("magenta: no thread %q (:Magenta threads lists them)", id), LevelError)
		return
	}
	a.active = match
	a.showActive()
	match.Refresh()
}

// findThread finds the thread whose id is id or, failing that, the only
// one whose id starts with id. When several do, it returns none and
// describes each candidate (short id and title) instead: opening the
// older one silently would show the user the wrong conversation.
func (a *App) findThread(id string) (*Thread, []string) {
	var prefixed []*Thread
	for _, t := range a.threads {
		if t.ID == id {
			return t, nil
		}
		if id != "" && strings.HasPrefix(t.ID, id) {
			prefixed = append(prefixed, t)
		}
	}
	if len(prefixed) == 1 {
		return prefixed[0], nil
	}
	ids := make([]string, len(a.threads))
	for i, t := range a.threads {
		ids[i] = t.ID
	}
	short := view.ShortIDs(ids)
	a.sumMu.Lock()
	defer a.sumMu.Unlock()
	var candidates []string
	for _, t := range prefixed {
		title := a.summaries[t.ID].Title
		if title == "" {
			title = "New thread"
		}
		candidates = append(candidates, fmt.Sprintf("%s (%s)", short[t.ID], title))
	}
	return nil, candidates
}

// ThreadIDs returns the short unique id of every thread, oldest first,
// for completing :Magenta thread. Safe to call from any goroutine.
func (a *App) ThreadIDs() []string {
	a.sumMu.Lock()
	ids := make([]string, 0, len(a.summaries))
	for id := range a.summaries {
		ids = append(ids, id)
	}
	a.sumMu.Unlock()
	if a.deps.Store != nil {
		for _, s := range a.deps.Store.List() {
			if !slices.Contains(ids, s.ID) {
				ids = append(ids, s.ID)
			}
		}
	}
	sort.Strings(ids)
	short := view.ShortIDs(ids)
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = short[id]
	}
	return out
}

func (a *App) setProfile(name string) {
	p, ok := a.opts.Profile(name)
	if !ok {
		names := make([]string, len(a.opts.Profiles))
		for i, p := range a.opts.Profiles {
			names[i] = p.Name
		}
		a.deps.Screen.Notify(fmt.Sprintf("magenta: no profile %q; profiles: %s", name, strings.Join(names, ", ")), LevelError)
		return
	}
	a.profile = p
	a.active.SetProfile(p)
}

func (a *App) act(action view.Action) {
	if action.Target == "" {
		switch action.Kind {
		case view.ActionSwitchThread:
			a.selectThread(action.Arg)
		case view.ActionOpenFile:
			a.deps.Screen.OpenFile(action.Arg, action.Line)
		default:
			slog.Warn("app: unknown action", "kind", action.Kind)
		}
		return
	}
	for _, t := range a.threads {
		if t.ID == action.Target {
			t.Act(action)
		}
	}
}

func (a *App) onSummary(s view.ThreadSummary) {
	a.sumMu.Lock()
	a.summaries[s.ID] = s
	showing := a.showingList
	a.sumMu.Unlock()
	if showing {
		a.publishList()
	}
}

func (a *App) setShowingList(v bool) {
	a.sumMu.Lock()
	a.showingList = v
	a.sumMu.Unlock()
}

// publishList renders the thread list: the running threads and the
// saved ones, most recently active first.
func (a *App) publishList() {
	a.sumMu.Lock()
	list := make([]view.ThreadSummary, 0, len(a.summaries)+len(a.saved))
	for _, s := range a.summaries {
		list = append(list, s)
	}
	for _, s := range a.saved {
		if _, running := a.summaries[s.ID]; !running {
			list = append(list, s)
		}
	}
	a.listVersion++
	version, activeID := a.listVersion, a.activeID
	// Published under the lock (Publish never blocks): the app and thread
	// goroutines both publish the list, and one that built its list
	// earlier must not publish it over a newer one.
	defer a.sumMu.Unlock()
	sortThreads(list)
	a.deps.Screen.Publish(ThreadListKey, view.RenderThreadList(list, activeID, a.approvalKeys().Activate, version))
}

// onApprovalChange routes a change of pending approvals to the thread
// that owns them, and tells the user when the sidebar is closed. It is
// called from tool and thread goroutines and never blocks.
func (a *App) onApprovalChange(threadID string, added *approval.Request) {
	a.sumMu.Lock()
	t := a.byID[threadID]
	var all []*Thread
	if threadID == "" { // asked of the workspace: every thread draws it
		for _, t := range a.byID {
			all = append(all, t)
		}
	}
	a.sumMu.Unlock()
	for _, t := range all {
		t.ApprovalsChanged()
	}
	if t != nil {
		t.ApprovalsChanged()
		kickAncestors(t)
	}
	if added != nil {
		a.deps.Screen.NotifyIfHidden(fmt.Sprintf("magenta: waiting for your approval: %s (%s). Open the sidebar with :Magenta toggle.", firstLineOf(added.Subject), added.Reason))
	}
}

// explainApprovalKey says, for an approve / deny / always key pressed
// where no approval is drawn, where the cursor must go; it answers
// nothing.
func (a *App) explainApprovalKey(key view.Key) {
	if key != view.KeyApprove && key != view.KeyDeny && key != view.KeyAlways {
		return
	}
	here, elsewhere := 0, 0
	if a.deps.Broker != nil {
		a.sumMu.Lock()
		for _, r := range a.deps.Broker.Pending("") {
			if !a.listing && (r.ThreadID == "" || a.drawnInActive(a.byID[r.ThreadID])) {
				here++
			} else {
				elsewhere++
			}
		}
		a.sumMu.Unlock()
	}
	var msg string
	switch {
	case here > 0:
		msg = "magenta: the cursor is on no approval, so nothing was answered: put it on the request (its ┃ lines or a > choice) and press the key again"
	case elsewhere > 0:
		msg = fmt.Sprintf("magenta: no approval waits here, nothing was answered (%s: :Magenta threads)", view.Count(elsewhere, "approval waits in another thread", "approvals wait in other threads"))
	default:
		msg = "magenta: no approval waits"
	}
	a.deps.Screen.Notify(msg, LevelInfo)
}

// drawnInActive reports whether t's approvals are drawn in the thread
// shown: t is it, or one of its sub-agents (drawn in the spawn call).
// Called with sumMu held (byID).
func (a *App) drawnInActive(t *Thread) bool {
	for t != nil {
		if t == a.active {
			return true
		}
		if t.agents.self == nil {
			return false
		}
		t = t.agents.self.parent
	}
	return false
}

// approvalKeys are the keys approval blocks name.
func (a *App) approvalKeys() *view.ApprovalKeys {
	k := a.opts.DisplayKeyLabels()
	return &view.ApprovalKeys{Activate: k.Activate, Approve: k.Approve, Deny: k.Deny, Always: k.Always}
}
