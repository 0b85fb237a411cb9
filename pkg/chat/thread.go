package chat

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/magenta-nvim/magenta/pkg/chat/view"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/provider"
)

// inboxSize bounds a thread's queue; senders wait when it is full, which
// slows a stream down rather than dropping its events.
const inboxSize = 256

// Thread is one conversation. Its exported methods only enqueue and are
// safe for concurrent use; all state is owned by the run goroutine.
type Thread struct {
	ID string

	deps  Deps
	inbox chan any
	// approvals is a coalescing signal (capacity 1): see ApprovalsChanged.
	approvals chan struct{}
	ctx       context.Context
	cancel    context.CancelFunc
	done      chan struct{}
	// workers tracks the stream and tool goroutines the owner started.
	workers sync.WaitGroup

	// Owned by the run goroutine.
	profile    config.Profile
	providers  map[string]provider.Provider
	title      string
	messages   []provider.Message
	entries    []*entry
	entrySeq   int
	versionSeq uint64
	dirty      bool
	turn       *turn
	turnSeq    int
	// pending holds the user's messages not yet sent, oldest first, drawn
	// as queued below everything: the one queue of waiting input, whatever
	// the thread is busy with (a turn, a compaction, a context read).
	pending []*entry
	header  cachedSection[view.Header]
	// The settled prefix of the frame (see frame): sections of the header
	// and of entries[:settledN], shared by the frames published since it
	// was started.
	settled     []*view.Section
	settledEnds []int
	settledN    int
	// urgent marks the next published frame as one to draw at once (the
	// first text of a reply).
	urgent bool
	// context holds the files the user attached; readingContext is set
	// while a worker reads them for a message (pending[0]).
	context        []*contextFile
	readingContext bool
	contextVersion int // bumped when context changes
	ctxSec         cachedSection[int]
	// wsApproval is the question asked of the workspace, drawn under the
	// header (see onWorkspaceApproval).
	wsApproval cachedSection[*view.Approval]
	status     cachedSection[string]
	lastSum    view.ThreadSummary
	// agents is the thread's sub-agents, and itself as one.
	agents threadAgents
	// usage is what the thread's requests used so far (see countUsage).
	usage view.Usage
	// compaction: see compaction.go.
	compaction compactionState
	// log is the thread's saved form (persist.go).
	log threadLog
	// serversWaited: the first request waited for the tool servers
	// starting, or had none to wait for (toolwait.go).
	serversWaited bool
	// observers react to the thread's events (events.go); lastState is
	// the state last told them.
	observers []Observer
	// todos is the model's todo list (todos.go).
	todos todoList
	// planning: plan mode is on (plan.go).
	planning  bool
	lastState threadState
	lastMeta  MetaChanged
	// prompt: the prompt check's state (hookpoints.go).
	prompt promptState
	// images: how the thread's images fare with its profile (images.go).
	images imageState
}

type (
	msgSend struct {
		text     string
		attached []Attachment // what its @-mentions expanded to
		typed    bool         // the user typed it: a /command expands
		auto     bool         // not the user's: a Stop hook's feedback (hookpoints.go)
	}
	msgAbort      struct{}
	msgAction     struct{ action view.Action }
	msgApprovals  struct{}
	msgSetTitle   struct{ title string }
	msgSetProfile struct{ profile config.Profile }
	msgStream     struct {
		turn int
		ev   provider.Event
	}
	msgStreamDone struct {
		turn int
		resp *provider.Response
		err  error
	}
	msgToolDone struct {
		turn int
		id   string
		res  toolResult
	}
)

// NewThread starts a thread with a UUIDv7 id and returns it.
func NewThread(parent context.Context, profile config.Profile, deps Deps) (*Thread, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return nil, fmt.Errorf("new thread id: %w", err)
	}
	t := newThread(parent, id.String(), profile, deps)
	t.log.active = time.Now()
	t.attachStandardObservers()
	go t.run()
	return t, nil
}

// newThread is the one constructor of a Thread's state, for a new thread
// (NewThread) and a saved one (RestoreThread) alike; the caller fills in
// what it brings, then starts the run goroutine.
func newThread(parent context.Context, id string, profile config.Profile, deps Deps) *Thread {
	ctx, cancel := context.WithCancel(parent)
	return &Thread{
		ID: id, deps: deps,
		inbox: make(chan any, inboxSize), approvals: make(chan struct{}, 1),
		ctx: ctx, cancel: cancel, done: make(chan struct{}),
		profile: profile, providers: map[string]provider.Provider{},
		agents: newThreadAgents(deps.agents),
	}
}

// Send queues a user message.
func (t *Thread) Send(text string) { t.enqueue(msgSend{text: text, typed: true}) }

// Abort stops the running turn, if any.
func (t *Thread) Abort() { t.enqueue(msgAbort{}) }

// Act performs a key-binding action aimed at this thread.
func (t *Thread) Act(a view.Action) { t.enqueue(msgAction{a}) }

// SetProfile switches the model used from the next request on.
func (t *Thread) SetProfile(p config.Profile) { t.enqueue(msgSetProfile{p}) }

// SetTitle implements tools.ThreadControl.
func (t *Thread) SetTitle(title string) { t.enqueue(msgSetTitle{title}) }

// ApprovalsChanged tells the thread its pending approvals changed. It
// never blocks (it may be called from the thread's own goroutine, when
// the thread answers an approval): signals coalesce.
func (t *Thread) ApprovalsChanged() {
	select {
	case t.approvals <- struct{}{}:
	default:
	}
}

// Refresh publishes the current frame again (after the display changed).
func (t *Thread) Refresh() { t.enqueue(nil) }

// Close cancels everything the thread runs and waits for it to stop.
func (t *Thread) Close() {
	t.cancel()
	<-t.done
}

// enqueue delivers m unless the thread is closing. Waiting on ctx and not
// only on done matters: run closes done only after its workers have
// returned, so a worker blocked on a full inbox that waited for done alone
// would wait for itself (Close would never return).
func (t *Thread) enqueue(m any) {
	select {
	case t.inbox <- m:
	case <-t.ctx.Done():
	case <-t.done:
	}
}

func (t *Thread) run() {
	defer close(t.done)
	defer t.closeLog() // after the workers: only this goroutine writes
	defer t.workers.Wait()
	t.handleSafely(msgApprovals{}) // a workspace question asked before the thread began
	t.publish(true)
	for {
		// Once the thread is closing, nothing more is handled: what the
		// close itself causes (a stream ending "cancelled", tool calls cut
		// short) must not be recorded as the turn's end — reopened, the
		// thread says its tool calls were interrupted — and closeTurn
		// keeps what was drawn of a reply.
		if t.ctx.Err() != nil {
			t.closeTurn()
			return
		}
		select {
		case <-t.ctx.Done():
		case <-t.approvals:
			if t.handleUnlessClosing(msgApprovals{}) {
				t.publish(false)
			}
		case <-t.agents.kick:
			if t.handleUnlessClosing(msgKick{}) {
				t.publish(false)
			}
		case m := <-t.inbox:
			if !t.handleUnlessClosing(m) {
				continue
			}
			// Drain what else is waiting, so a burst of deltas costs one
			// render.
			for drained := false; !drained; {
				select {
				case m := <-t.inbox:
					drained = !t.handleUnlessClosing(m)
				default:
					drained = true
				}
			}
			t.publish(m == nil)
		}
	}
}

// handleUnlessClosing handles m and reports true, or drops it and
// reports false once the thread is closing. The check comes after m was
// received: a message the close caused was sent after the cancel.
func (t *Thread) handleUnlessClosing(m any) bool {
	if t.ctx.Err() != nil {
		return false
	}
	t.handleSafely(m)
	return true
}

// handleSafely keeps the thread alive when handling one message panics:
// the user sees the error in the thread and can go on.
func (t *Thread) handleSafely(m any) {
	defer func() {
		if p := recover(); p != nil {
			slog.Error("thread panicked", "thread", t.ID, "panic", p, "stack", string(debug.Stack()))
			t.notice(view.NoticeError, fmt.Sprintf("internal error (a bug in magenta; see the log): %v", p))
		}
	}()
	t.handle(m)
}

func (t *Thread) handle(m any) {
	switch m := m.(type) {
	case nil:
	case msgSend:
		t.onSend(m)
	case msgAbort:
		t.onAbort()
	case msgAction:
		t.onAction(m.action)
	case msgQuery:
		m.f()
	case msgSetTodos:
		t.onSetTodos(m.items)
	case msgPlanMode:
		t.onPlanMode(m)
	case msgSetTitle:
		t.title = m.title
		t.dirty = true
	case msgSetProfile:
		t.profile = m.profile
		t.dirty = true
		t.notice(view.NoticeInfo, fmt.Sprintf("profile %s (%s %s) from the next request on", m.profile.Name, m.profile.Provider, m.profile.Model))
	case msgStream:
		if t.turn != nil && t.turn.id == m.turn {
			t.onStreamEvent(m.ev)
		}
	case msgStreamDone:
		if t.turn != nil && t.turn.id == m.turn {
			t.onStreamDone(m.resp, m.err)
		}
	case msgToolDone:
		if t.turn != nil && t.turn.id == m.turn {
			t.onToolDone(m.id, m.res)
		}
	case msgTick:
		if t.turn != nil && t.turn.id == m.turn && t.turn.phase == phaseTools {
			t.onTick()
		}
	case msgApprovals:
		t.onApprovals()
	case msgAddContext:
		t.onAddContext(m.paths)
	case msgRemoveContext:
		t.onRemoveContext(m.path)
	case msgContextRead:
		t.onContextRead(m)
	case msgCompact:
		t.onCompact()
	case msgCompacted:
		t.onCompacted(m)
	case threadMsg:
		m.apply(t)
	default:
		slog.Error("thread: unknown message", "type", fmt.Sprintf("%T", m))
	}
}

func (t *Thread) onAction(a view.Action) {
	switch a.Kind {
	case view.ActionToggleTool:
		for _, e := range t.entries {
			if e.id == a.Arg && e.kind == entryTool {
				e.tool.Expanded = !e.tool.Expanded
				t.touch(e)
			}
		}
	case view.ActionTerminateTool:
		for _, e := range t.entries {
			if e.id == a.Arg && e.cancel != nil && e.tool.Status == view.ToolRunning {
				e.cancel()
			}
		}
	case view.ActionApprove, view.ActionDeny, view.ActionAlways:
		t.answer(a.Arg, a.Kind)
	case view.ActionRemoveContext:
		t.onRemoveContext(a.Arg)
	case view.ActionToggleEntry:
		t.toggleFolded(a.Arg)
	case view.ActionOpenTerminal:
		t.openTerminal(a.Arg)
	default:
		slog.Warn("thread: unknown action", "kind", a.Kind)
	}
}

func (t *Thread) publish(force bool) {
	if !t.dirty && !force {
		return
	}
	t.dirty = false
	t.noteState()
	t.noteMeta()
	// The summary goes first: a command acting on what the display shows
	// (delete a thread drawn "ready") must not find the status a frame old.
	sum := view.ThreadSummary{ID: t.ID, Title: t.title, Status: t.statusWord(), Profile: t.profile.Name, ParentID: t.listParent(),
		Messages: t.log.messages, Active: t.log.active}
	if env := t.deps.Env; env != nil && env.Name != "" && env.Name != "local" {
		sum.Env = env.Name
	}
	if sum != t.lastSum && t.deps.OnSummary != nil {
		t.lastSum = sum
		t.deps.OnSummary(sum)
	}
	f := t.frame()
	f.Urgent, t.urgent = t.urgent, false
	t.deps.Display.Publish(t.ID, f)
	t.reportSubagent()
}
