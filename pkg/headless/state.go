package headless

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/magenta-nvim/magenta/pkg/approval"
	"github.com/magenta-nvim/magenta/pkg/chat"
	"github.com/magenta-nvim/magenta/pkg/chat/view"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// state follows the run: it observes every thread (the main one and its
// sub-agents), answers approvals per --approve, refuses tool calls once
// a limit stopped the run, and stands in for the editor's screen. Its
// observer runs on thread goroutines and never blocks: events queue in
// the output, a stop aborts through a goroutine.
type state struct {
	out *output
	p   params
	app *chat.App // set before the first message is sent

	main  atomic.Pointer[string]
	ended chan struct{} // closed when the main thread's turn ended
	// firstTool is closed when the first tool call is about to run.
	firstTool     chan struct{}
	firstToolOnce sync.Once

	mu         sync.Mutex
	endOnce    sync.Once
	turnEnd    chat.TurnEnded
	replies    int                   // the main thread's replies this run
	final      string                // the text of its last reply
	usage      map[string]view.Usage // each thread's usage so far
	stopStatus string                // why the run was stopped ("" : it was not)
	stopWhy    string
	errors     []string // errors the app reported (a thread that did not open)
	warned     map[string]bool
}

func newState(out *output, p params) *state {
	return &state{out: out, p: p, ended: make(chan struct{}), firstTool: make(chan struct{}), usage: map[string]view.Usage{}, warned: map[string]bool{}}
}

func (s *state) setMain(id string) { s.main.Store(&id) }

func (s *state) mainID() string {
	if id := s.main.Load(); id != nil {
		return *id
	}
	return ""
}

func (s *state) hasEnded() bool {
	select {
	case <-s.ended:
		return true
	default:
		return false
	}
}

// Observe implements chat.Observer.
func (s *state) Observe(t *chat.Thread, ev chat.ThreadEvent) {
	main := t.ID == s.mainID()
	sub := t.Subagent()
	if m, ok := ev.(chat.MetaChanged); ok {
		s.noteUsage(t.ID, m.Usage)
		return
	}
	if !main && !sub {
		return // the empty thread a continued run leaves behind
	}
	base := Event{Thread: t.ID}
	if sub {
		base.Parent = s.mainID()
	}
	switch ev := ev.(type) {
	case chat.ReplyDelta:
		e := base
		e.Type, e.Text = EventText, ev.Text
		if ev.Thinking {
			e.Type = EventThinking
		}
		s.out.emit(e)
	case chat.ToolCallStarted:
		e := base
		e.Type, e.ID, e.Name, e.Input = EventToolCall, ev.ID, ev.Name, compactJSON(ev.Input)
		s.out.emit(e)
	case chat.ToolCallEnded:
		e := base
		e.Type, e.ID, e.Name, e.Text, e.IsError, e.Summary = EventToolResult, ev.ID, ev.Name, ev.Result.Text, ev.Result.IsError, ev.Result.Summary
		s.out.emit(e)
	case chat.TurnUsage:
		if main {
			u := toUsage(ev.Usage)
			s.out.emit(Event{Type: EventUsage, Thread: t.ID, Usage: &u, Requests: ev.Requests})
		}
	case chat.MessageAppended:
		if main && ev.Message.Role == provider.RoleAssistant {
			s.noteReply(ev.Message)
		}
	case chat.TurnEnded:
		if main {
			s.endOnce.Do(func() {
				s.mu.Lock()
				s.turnEnd = ev
				s.mu.Unlock()
				close(s.ended)
			})
		}
	}
}

// noteReply counts the main thread's replies for --max-turns and keeps
// the last one's text as the final message.
func (s *state) noteReply(m provider.Message) {
	var text []string
	asksTools := false
	for _, b := range m.Content {
		switch b.Kind {
		case provider.BlockText:
			text = append(text, b.Text)
		case provider.BlockToolUse:
			asksTools = true
		}
	}
	s.mu.Lock()
	s.replies++
	n := s.replies
	if len(text) > 0 {
		s.final = strings.Join(text, "\n")
	}
	s.mu.Unlock()
	if s.p.maxTurns > 0 && n >= s.p.maxTurns && asksTools {
		s.stop(StatusMaxTurns, fmt.Sprintf("the model asked for tools after %d replies (--max-turns %d)", n, s.p.maxTurns))
	}
}

// noteUsage records a thread's usage and stops the run once the total,
// sub-agents included, passes --max-cost.
func (s *state) noteUsage(id string, u view.Usage) {
	s.mu.Lock()
	s.usage[id] = u
	total := s.totalLocked()
	s.mu.Unlock()
	if s.p.maxCost > 0 && total.Cost > s.p.maxCost {
		s.stop(StatusBudget, fmt.Sprintf("the thread's cost, $%.4f, passed --max-cost $%.4f", total.Cost, s.p.maxCost))
	}
}

func (s *state) totalLocked() view.Usage {
	var total view.Usage
	for _, u := range s.usage {
		total.Input += u.Input
		total.Output += u.Output
		total.CacheRead += u.CacheRead
		total.CacheWrite += u.CacheWrite
		total.Cost += u.Cost
		total.Priced = total.Priced || u.Priced
	}
	return total
}

// stop ends the run early: tool calls from now on are refused, and the
// main thread's turn is aborted as :Magenta abort does (its running
// tools and sub-agents with it). The first reason wins.
func (s *state) stop(status, why string) {
	s.mu.Lock()
	first := s.stopStatus == ""
	if first {
		s.stopStatus, s.stopWhy = status, why
	}
	app := s.app
	s.mu.Unlock()
	if first && app != nil {
		go app.Abort() // never from a thread goroutine: Abort waits on the app's inbox
	}
}

func (s *state) stopped() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stopWhy
}

// Intercept implements tools.Interceptor: once the run is stopped, no
// tool call starts.
func (s *state) Intercept(ctx context.Context, name string, call tools.Call, next tools.Next) tools.Result {
	s.firstToolOnce.Do(func() { close(s.firstTool) })
	if why := s.stopped(); why != "" {
		return tools.Errorf("not run: the headless run was stopped (" + why + ")")
	}
	return next(ctx)
}

// decide answers every approval per --approve (approval.Policy) and
// reports the answer.
func (s *state) decide(_ context.Context, req approval.Request) (approval.Decision, string, bool) {
	d, why := approval.Deny, DeclinedSandbox
	switch s.p.approve {
	case ApproveAlways:
		d, why = approval.Allow, ""
	case ApproveNever:
		why = DeclinedNever
	}
	ev := Event{Type: EventApproval, Thread: req.ThreadID, ToolCall: req.ToolUseID, Kind: req.Kind, Subject: req.Subject, Reason: req.Reason, Decision: d.String()}
	if req.ThreadID != s.mainID() && req.ThreadID != "" {
		ev.Parent = s.mainID()
	}
	s.out.emit(ev)
	return d, why, true
}

// warn reports a warning once.
func (s *state) warn(msg string) {
	s.mu.Lock()
	seen := s.warned[msg]
	s.warned[msg] = true
	s.mu.Unlock()
	if !seen {
		s.out.emit(Event{Type: EventNotice, Level: "warn", Text: msg})
	}
}

func (s *state) lastError() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.errors) == 0 {
		return "no reason given"
	}
	return s.errors[len(s.errors)-1]
}

// early ends a run that could not start: the reason on stderr (and as
// the result event with --json).
func (s *state) early(code int, msg string) int {
	status := StatusFailure
	if code == ExitUsage {
		status = StatusUsage
	}
	if s.p.json {
		s.out.emit(Event{Type: EventResult, Status: status, ExitCode: &code, Error: msg})
	}
	fmt.Fprintf(s.out.errW, "magenta-host run: %s\n", msg)
	return code
}

// result is the run's last event.
func (s *state) result(interrupted bool) Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	total := toUsage(s.totalLocked())
	ev := Event{Type: EventResult, Thread: s.mainID(), Text: s.final, Usage: &total}
	code := ExitOK
	switch {
	case interrupted:
		ev.Status, code, ev.Error = StatusInterrupted, ExitInterrupted, "interrupted: the turn was aborted"
	case s.stopStatus != "":
		ev.Status, code, ev.Error = s.stopStatus, ExitBudget, "stopped: "+s.stopWhy
	case !s.hasEnded():
		ev.Status, code, ev.Error = StatusFailure, ExitFailure, "the turn did not end"
	case s.turnEnd.Failure != "":
		ev.Status, code, ev.Error = StatusModelError, ExitModelError, s.turnEnd.Failure
	case s.turnEnd.Aborted:
		ev.Status, code, ev.Error = StatusInterrupted, ExitInterrupted, "the turn was aborted"
	default:
		ev.Status = StatusSuccess
	}
	ev.ExitCode = &code
	return ev
}

func toUsage(u view.Usage) Usage {
	return Usage{Input: u.Input, Output: u.Output, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite, Cost: u.Cost, Priced: u.Priced}
}

// compactJSON is a tool input on one line; what is not JSON is passed
// as a string.
func compactJSON(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if len(raw) == 0 {
		return json.RawMessage("{}")
	}
	if err := json.Compact(&b, raw); err != nil {
		quoted, _ := json.Marshal(string(raw))
		return quoted
	}
	return json.RawMessage(b.Bytes())
}
