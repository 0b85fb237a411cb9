package chat

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/magenta-nvim/magenta/pkg/chat/view"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/threadstore"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// ThreadEvent is something that happened to a thread. The thread emits
// each from the one place that makes it happen, and tells its observers
// at once, on its own goroutine. What reacts to a thread's life —
// persistence (persist.go), a sub-agent's report to its parent
// (subagents.go) — is an observer, not a call woven into the loop; a new
// reaction (checkpoints, diagnostics after edits, hooks) is another.
type ThreadEvent interface{ threadEvent() }

type (
	// MessageAppended: m joined the history (merged into the last message
	// when their roles match). Typed marks the blocks of a user message
	// that the user typed, with what their mentions attached.
	MessageAppended struct {
		Message provider.Message
		Typed   []threadstore.Typed
	}
	// HistoryCompacted: compaction replaced the history with History,
	// whose first message holds Summary; Replaced messages went.
	HistoryCompacted struct {
		Summary  string
		Replaced int
		History  []provider.Message
	}
	// TurnUsage: the usage line drawn at the end of a turn (its requests
	// reported usage), in its place among the messages.
	TurnUsage struct {
		Usage    view.Usage
		Requests int
	}
	// TurnEnded: a turn is over, told once endTurn has done everything
	// the end causes — messages queued during the turn may have started
	// the next one already (state() says). Clean unless it was aborted or
	// failed (Failure says how).
	TurnEnded struct {
		Clean, Aborted bool
		Failure        string
	}
	// StateChanged: what the thread is doing (state()) changed, as seen
	// after a burst of inbox messages.
	StateChanged struct{ From, To threadState }
	// ToolCallStarted: the model's tool call ID runs now (on a worker),
	// with the input the model sent.
	ToolCallStarted struct {
		ID, Name string
		Input    json.RawMessage
	}
	// ToolCallEnded: the tool call ID returned Result. A call the user
	// aborts ends with its turn instead (TurnEnded, Aborted).
	ToolCallEnded struct {
		ID, Name string
		Result   tools.Result
	}
	// ReplyDelta: the model's reply grew by Text as it streamed (its
	// thinking when Thinking). For front ends that stream the reply
	// (headless --json, ACP); the complete message follows as
	// MessageAppended, and a reply the user aborts is kept as far as it
	// streamed.
	ReplyDelta struct {
		Text     string
		Thinking bool
	}
	// MetaChanged: the thread's title, profile or usage so far changed
	// (told after a burst of inbox messages, with all three as they are).
	MetaChanged struct {
		Title, Profile string
		Usage          view.Usage
	}
)

func (MessageAppended) threadEvent()  {}
func (HistoryCompacted) threadEvent() {}
func (TurnUsage) threadEvent()        {}
func (TurnEnded) threadEvent()        {}
func (StateChanged) threadEvent()     {}
func (MetaChanged) threadEvent()      {}
func (ReplyDelta) threadEvent()       {}
func (ToolCallStarted) threadEvent()  {}
func (ToolCallEnded) threadEvent()    {}

// Observer reacts to a thread's events. It runs on the thread's
// goroutine, right after the event, and sees the thread as the event
// left it; it may change the thread (draw a notice, queue a message), but
// it must not block: anything slow goes to a goroutine of its own and
// comes back through the inbox, as tools do. One that takes longer than
// observerBudget is logged as slow, naming it; one that panics is logged
// and skipped for that event, and the thread goes on. Observers are told
// in the order they were attached. What must happen before a tool call,
// or may veto it, is a tools.Interceptor instead (Deps.Interceptors).
type Observer interface {
	Observe(t *Thread, ev ThreadEvent)
}

// ObserverFunc adapts a function to Observer.
type ObserverFunc func(*Thread, ThreadEvent)

// Observe implements Observer.
func (f ObserverFunc) Observe(t *Thread, ev ThreadEvent) { f(t, ev) }

// observe attaches o. A restored thread attaches its observers after
// rebuilding its history, so replaying it tells no one.
func (t *Thread) observe(o Observer) { t.observers = append(t.observers, o) }

// observerBudget is how long an observer may hold the thread's
// goroutine before it is logged as slow: a frame is 30 ms, and every
// observer of every event shares it.
const observerBudget = 5 * time.Millisecond

// emit tells every observer about ev.
func (t *Thread) emit(ev ThreadEvent) {
	for _, o := range t.observers {
		t.tell(o, ev)
	}
}

// tell is one observer told one event, timed, its panic recovered.
func (t *Thread) tell(o Observer, ev ThreadEvent) {
	start := time.Now()
	defer func() {
		if p := recover(); p != nil {
			slog.Error("thread observer panicked", "thread", t.ID, "observer", fmt.Sprintf("%T", o), "event", fmt.Sprintf("%T", ev), "panic", p, "stack", string(debug.Stack()))
		}
		if d := time.Since(start); d > observerBudget {
			slog.Warn("thread observer is slow", "thread", t.ID, "observer", fmt.Sprintf("%T", o), "event", fmt.Sprintf("%T", ev), "took", d)
		}
	}()
	o.Observe(t, ev)
}

// noteState emits StateChanged when state() differs from the last one
// told (once per burst of inbox messages, from publish).
func (t *Thread) noteState() {
	if s := t.state(); s != t.lastState {
		from := t.lastState
		t.lastState = s
		t.emit(StateChanged{From: from, To: s})
	}
}

// meta is the thread's MetaChanged as it is now.
func (t *Thread) meta() MetaChanged {
	return MetaChanged{Title: t.title, Profile: t.profile.Name, Usage: t.usage}
}

// noteMeta emits MetaChanged when the title, profile or usage differ from
// what was last told (from publish).
func (t *Thread) noteMeta() {
	if m := t.meta(); m != t.lastMeta {
		t.lastMeta = m
		t.emit(m)
	}
}

// attachStandardObservers attaches what every thread has: its saved form, and
// its report to a parent when it is a sub-agent.
func (t *Thread) attachStandardObservers() {
	t.observe(ObserverFunc(observeForLog))
	t.observe(ObserverFunc(observeForParent))
	for _, o := range t.deps.Observers {
		t.observe(o)
	}
}
