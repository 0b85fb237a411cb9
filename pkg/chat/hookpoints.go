package chat

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/chat/view"
	"github.com/magenta-nvim/magenta/pkg/provider"
)

// PromptCheck looks at what the user sends before the model gets it:
// the UserPromptSubmit hooks, which may refuse it or add context, and
// the SessionStart hooks, whose context goes with a thread's first
// message (pkg/hooks). Check runs on a worker goroutine, in the same
// step that reads the context files (state readingContext), under the
// thread's context; it must return when ctx ends, and bound its own
// time. While Wants says the thread's messages are checked, messages
// sent during a turn wait for it too: they go together through it when
// the turn ends, and after an abort they stay queued (held) until the
// user's next message takes them along — nothing the user typed reaches
// the model unchecked. Sub-agents' tasks and a Stop hook's feedback
// (ContinueAfter) are not checked. Safe for concurrent use.
type PromptCheck interface {
	// Wants reports whether messages of a thread working in env are
	// checked now (some hook would run). It is asked on the thread's
	// goroutine: it must be cheap and never block. False: the thread
	// sends as it would without a check.
	Wants(env *capabilities.Environment) bool
	Check(ctx context.Context, p Prompt) PromptVerdict
}

// Prompt is what the user sends, as the check sees it.
type Prompt struct {
	ThreadID string
	// Text is what the user typed; messages sent together are joined
	// with a blank line.
	Text  string
	Env   *capabilities.Environment
	Model string
	// First: the thread's first message in this session (SessionStart);
	// Resumed: the thread already has messages (it was reopened).
	First, Resumed bool
}

// PromptVerdict is the check's answer.
type PromptVerdict struct {
	// Blocked, when not "", refuses the messages: they are not sent, the
	// chat says why, and their text goes back to the input.
	Blocked string
	// Context are texts the model gets before the messages.
	Context []string
	// Notes are drawn in the thread (what a hook said, what failed).
	Notes []PromptNote
}

// PromptNote is one line a check draws; Warn marks a problem.
type PromptNote struct {
	Warn bool
	Text string
}

// promptState is the thread's side of the prompt check.
type promptState struct {
	// started: a first message went through the check (SessionStart
	// ran for this thread in this session).
	started bool
	// held: messages an aborted turn left unsent wait in t.pending for
	// the user's next message (dispatch leaves them).
	held bool
	// cancel stops the check running (nil when none is); aborted: the
	// user aborted it, so its messages go back to the input.
	cancel  context.CancelFunc
	aborted bool
}

// promptContext is the context of the read starting now: with a check
// (check), the thread's ended by an abort (abortPromptCheck); without,
// the thread's, and an abort does not end the read.
func (t *Thread) promptContext(check bool) context.Context {
	if t.prompt.cancel != nil {
		t.prompt.cancel() // one whose messages went meanwhile
	}
	t.prompt.cancel, t.prompt.aborted = nil, false
	if !check {
		return t.ctx
	}
	ctx, cancel := context.WithCancel(t.ctx)
	t.prompt.cancel = cancel
	return ctx
}

// abortPromptCheck stops a running check (:Magenta abort while hooks
// look at the message): it reports whether there was one. Its messages
// go back to the input when it reports (applyPrompt).
func (t *Thread) abortPromptCheck() bool {
	if !t.readingContext || t.prompt.cancel == nil {
		return false
	}
	t.prompt.cancel()
	t.prompt.aborted = true
	return true
}

// checksPrompts reports whether the thread's messages go through a
// prompt check (a sub-agent's never do).
func (t *Thread) checksPrompts() bool {
	return t.deps.PromptCheck != nil && t.agents.self == nil && t.deps.PromptCheck.Wants(t.deps.Env)
}

// waitingBatch is what dispatch sends next: the oldest waiting message,
// or, with a prompt check, every waiting message (the check sees them
// together, and they go together).
func (t *Thread) waitingBatch() []*entry {
	if t.checksPrompts() {
		return append([]*entry(nil), t.pending...)
	}
	return t.pending[:1:1]
}

// leaveQueued is what happens, with a prompt check, to messages a turn
// that ended (or a compaction) leaves waiting: after a clean end they
// go through the check and out as the next turn; otherwise they stay
// queued until the user's next message. It reports false without a
// check (the caller sends them as before).
func (t *Thread) leaveQueued(clean bool) bool {
	if !t.checksPrompts() || len(t.pending) == 0 {
		return false
	}
	if clean {
		t.dispatch()
		return true
	}
	t.prompt.held = true
	t.notice(view.NoticeInfo, "your queued messages were not sent; they go with your next message")
	return true
}

// promptFor is the check's view of the messages in batch; ok false when
// there is nothing to check (no check, or only automatic messages).
func (t *Thread) promptFor(batch []*entry) (Prompt, bool) {
	if !t.checksPrompts() {
		return Prompt{}, false
	}
	var texts []string
	for _, e := range batch {
		if !e.auto {
			texts = append(texts, e.text)
		}
	}
	if len(texts) == 0 {
		return Prompt{}, false
	}
	return Prompt{ThreadID: t.ID, Text: strings.Join(texts, "\n\n"), Env: t.deps.Env, Model: t.profile.Model,
		First: !t.prompt.started, Resumed: len(t.messages) > 0}, true
}

// runPromptCheck runs the check on a worker (from readContext), its
// panic turned into a refusal: a check that failed must not let the
// message through as if it had passed.
func (t *Thread) runPromptCheck(ctx context.Context, p Prompt) (v PromptVerdict) {
	defer func() {
		if r := recover(); r != nil {
			slog.Error("prompt check panicked", "thread", t.ID, "panic", r, "stack", string(debug.Stack()))
			v = PromptVerdict{Blocked: fmt.Sprintf("checking the message failed (a bug in magenta; see the log): %v", r)}
		}
	}()
	return t.deps.PromptCheck.Check(ctx, p)
}

// applyPrompt draws the check's notes and, when it refused the batch,
// takes the messages out of the queue and gives their text back to the
// input; it reports whether they may go.
func (t *Thread) applyPrompt(batch []*entry, v PromptVerdict, checked bool) bool {
	if t.prompt.cancel != nil {
		t.prompt.cancel()
		t.prompt.cancel = nil
	}
	if t.prompt.aborted {
		t.prompt.aborted = false
		v = PromptVerdict{Blocked: "you aborted it while hooks looked at it"}
	}
	for _, n := range v.Notes {
		level := view.NoticeInfo
		if n.Warn {
			level = view.NoticeWarning
		}
		t.notice(level, n.Text)
	}
	if v.Blocked == "" {
		t.prompt.started = t.prompt.started || checked
		return true
	}
	t.readingContext = false
	t.pending = t.pending[len(batch):]
	texts := make([]string, 0, len(batch))
	for _, e := range batch {
		if !e.auto {
			texts = append(texts, e.text)
		}
	}
	t.dirty = true
	t.notice(view.NoticeWarning, "your message was not sent: "+v.Blocked+"\nIt is back in the input.")
	if r, ok := t.deps.Display.(InputRestorer); ok && len(texts) > 0 {
		r.RestoreInput(strings.Join(texts, "\n\n"))
	}
	return false
}

// promptBlocks are the check's context texts as blocks.
func promptBlocks(v PromptVerdict) []provider.Block {
	out := make([]provider.Block, 0, len(v.Context))
	for _, c := range v.Context {
		out = append(out, provider.TextBlock(c))
	}
	return out
}

// ContinueAfter sends text to the model as the next message when the
// thread is still where turn number turn left it (idle, nothing waiting,
// no turn since): a Stop hook's feedback. It is not the user's typing:
// no /command expands and no prompt check looks at it. Otherwise the
// chat says it was dropped. Safe from any goroutine.
func (t *Thread) ContinueAfter(turn int, text string) {
	t.enqueue(msgContinue{turn: turn, text: text})
}

type msgContinue struct {
	turn int
	text string
}

func (m msgContinue) apply(t *Thread) {
	if t.state() != stateIdle || len(t.pending) > 0 || t.turnSeq != m.turn {
		t.notice(view.NoticeInfo, "a Stop hook's feedback was not sent: the thread went on meanwhile")
		return
	}
	t.onSend(msgSend{text: m.text, auto: true})
}

// Note draws a notice in the thread (warn: as a warning). Safe from any
// goroutine: what an observer's worker reports.
func (t *Thread) Note(warn bool, text string) { t.enqueue(msgNote{warn: warn, text: text}) }

type msgNote struct {
	warn bool
	text string
}

func (m msgNote) apply(t *Thread) {
	level := view.NoticeInfo
	if m.warn {
		level = view.NoticeWarning
	}
	t.notice(level, m.text)
}

// Idle reports whether the thread is idle with nothing waiting. For
// observers, on the thread's goroutine.
func (t *Thread) Idle() bool { return t.state() == stateIdle && len(t.pending) == 0 }

// Turn is the number of the thread's last turn (ContinueAfter takes
// it). For observers, on the thread's goroutine.
func (t *Thread) Turn() int { return t.turnSeq }

// Subagent reports whether the thread is a sub-agent. Safe from any
// goroutine (it is set when the thread is made).
func (t *Thread) Subagent() bool { return t.agents.self != nil }
