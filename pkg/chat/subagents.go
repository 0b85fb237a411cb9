package chat

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/chat/view"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// Sub-agent states before the end states of package tools.
const (
	subagentQueued  = "queued"
	subagentRunning = "running"
)

// reminderText is sent once to a sub-agent that ended its turn without
// yielding; if it ends the next turn without yielding too, its last text
// is its result.
const reminderText = "You ended your turn without calling yield_to_parent. Call yield_to_parent now with your complete answer to the task."

// subagent is one sub-agent as its parent, the app and its own thread
// know it. The fields above mu never change after creation.
type subagent struct {
	thread    *Thread // the sub-agent's own thread
	parent    *Thread
	agentType string
	prompt    string
	toolUseID string // the parent's spawn call
	// envLabel names the environment it works in when it is not its
	// parent's ("" when it is).
	envLabel string
	// ticket is its place in the parent's queue, taken in spawn order.
	ticket *ticket

	// done is closed by the sub-agent's goroutine once result is set.
	done   chan struct{}
	result tools.SubagentResult

	// abort asks the sub-agent's goroutine to abort (the parent was
	// aborted); it is read when the sub-agent is kicked.
	abort atomic.Bool

	// status is written by the sub-agent's goroutine and read by the
	// parent's, to draw the sub-agent's line.
	mu     sync.Mutex
	status subagentStatus
}

type subagentStatus struct {
	state          string
	title          string
	tokens         int
	started, ended time.Time
}

func (s *subagent) snapshot() subagentStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.status
}

// abortAll asks subs to abort; it never blocks. Every flag is set before
// any sub-agent is woken: one that ends at once frees its place, and a
// queued one must already know it is aborted when it gets that place.
func abortAll(subs []*subagent) {
	for _, s := range subs {
		s.abort.Store(true)
	}
	for _, s := range subs {
		s.thread.kickAgents()
	}
}

// agentDeps is the sub-agent part of a thread's Deps.
type agentDeps struct {
	app   *App      // creates sub-agents; nil: the thread cannot spawn
	self  *subagent // this thread as a sub-agent; nil for the user's threads
	depth int       // 0 for the user's threads
	limit int       // how many of this thread's sub-agents run at once
	// basePrompt is the system prompt of the user's thread at the root
	// (it names the environment); sub-agents add theirs to it.
	basePrompt string
}

// threadAgents is a thread's sub-agent state. The fields above kick never
// change after NewThread; the rest is owned by the thread goroutine.
type threadAgents struct {
	agentDeps
	// limiter queues this thread's sub-agents.
	limiter *limiter
	// kick is a coalescing signal (capacity 1): a sub-agent's status or an
	// approval changed, or this sub-agent is asked to abort.
	kick chan struct{}

	children []*subagent
	// shown are the tool-call entries that draw sub-agents.
	shown []*entry
	// As a sub-agent: what it yielded, whether it was reminded to, and
	// whether its result went out.
	launchCancel context.CancelFunc
	yielded      *string
	reminded     bool
	finished     bool
	tokens       int
	last         subagentStatus
}

func newThreadAgents(d agentDeps) threadAgents {
	return threadAgents{agentDeps: d, limiter: newLimiter(d.limit), kick: make(chan struct{}, 1)}
}

// kickAgents signals the thread; it never blocks.
func (t *Thread) kickAgents() {
	select {
	case t.agents.kick <- struct{}{}:
	default:
	}
}

// threadMsg is a message the thread applies to itself (sub-agent work
// keeps its messages here, out of the main switch).
type threadMsg interface{ apply(t *Thread) }

type (
	msgKick   struct{}
	msgLaunch struct{ task string }
	msgSlot   struct{ task string }
	msgYield  struct{ result string }
	msgWatch  struct {
		toolUseID string
		subs      []*subagent
		spawned   bool
	}
)

// Spawn implements tools.Subagents on the spawn call's goroutine.
func (t *Thread) Spawn(ctx context.Context, reqs []tools.SpawnRequest) ([]string, error) {
	app := t.agents.app
	if app == nil {
		return nil, errors.New("this thread cannot spawn sub-agents")
	}
	full := make([]spawnRequest, len(reqs))
	for i, r := range reqs {
		full[i] = spawnRequest{SpawnRequest: r, file: lookupFileAgent(ctx, t.deps.Prompts, r.AgentType)}
	}
	// Everything is checked before the user is asked anything or an
	// environment is made.
	var places []*place
	if err := app.onApp(func() error {
		var err error
		if _, err = app.checkSpawn(t, full); err == nil {
			places, err = app.resolvePlaces(full)
		}
		return err
	}); err != nil {
		return nil, err
	}
	made, err := t.preparePlaces(ctx, places)
	if err != nil {
		return nil, fmt.Errorf("stopped before the sub-agents started: %w", err)
	}
	for i, r := range reqs {
		full[i].placed = made[i]
		if made[i].notStarted != "" {
			continue
		}
		env := t.deps.Env
		if made[i].env != nil {
			env = made[i].env
		}
		full[i].task = subagentTask(ctx, env, r)
	}
	call := capabilities.CallFrom(ctx)
	subs, err := app.spawn(t, call.RequestID, full)
	if err != nil {
		for _, r := range full {
			r.owned.close()
		}
		return nil, err
	}
	t.enqueue(msgWatch{toolUseID: call.RequestID, subs: subs, spawned: true})
	ids := make([]string, len(subs))
	for i, s := range subs {
		ids[i] = s.thread.ID
	}
	return ids, nil
}

// subagentTask is a sub-agent's first message: the prompt after its
// context files, read here through the FileIO of the environment the
// sub-agent works in (the parent's, guarded as it is, or the one made
// for it elsewhere) under the spawn call's context, so a file that needs
// approval asks in the spawn call. The model chose these files; the user
// did not.
func subagentTask(ctx context.Context, env *capabilities.Environment, r tools.SpawnRequest) string {
	if len(r.ContextFiles) == 0 || env == nil || env.Files == nil {
		return r.Prompt
	}
	var b strings.Builder
	for _, p := range r.ContextFiles {
		path := p
		if !filepath.IsAbs(path) {
			path = filepath.Join(env.Cwd, path)
		}
		block, _, _ := contextBlock(ctx, env.Files, contextFile{path: filepath.Clean(path), rel: p})
		b.WriteString(block)
		b.WriteString("\n\n")
	}
	b.WriteString(r.Prompt)
	return b.String()
}

// Wait implements tools.Subagents on the wait call's goroutine.
func (t *Thread) Wait(ctx context.Context, ids []string) ([]tools.SubagentResult, error) {
	app := t.agents.app
	if app == nil {
		return nil, errors.New("this thread has no sub-agents")
	}
	subs, err := app.children(t, ids)
	if err != nil {
		return nil, err
	}
	callID := capabilities.CallFrom(ctx).RequestID
	t.enqueue(msgWatch{toolUseID: callID, subs: subs})
	out := make([]tools.SubagentResult, len(subs))
	var stopped []*subagent
	for i, s := range subs {
		select {
		case <-s.done:
			out[i] = s.result
		case <-ctx.Done():
			select {
			case <-s.done:
				out[i] = s.result
			default:
				// A blocking spawn that was stopped (terminated or
				// aborted) stops what it started; a stopped
				// wait_for_subagents leaves them running.
				if s.toolUseID == callID {
					stopped = append(stopped, s)
				}
				out[i] = tools.SubagentResult{ID: s.thread.ID, AgentType: s.agentType, State: tools.SubagentAborted, Text: "the wait was aborted"}
			}
		}
	}
	abortAll(stopped)
	return out, nil
}

// Yield implements tools.Subagents on the yield call's goroutine.
func (t *Thread) Yield(result string) error {
	if t.agents.self == nil {
		return errors.New("this thread is not a sub-agent; answer the user directly")
	}
	t.enqueue(msgYield{result})
	return nil
}

func (msgKick) apply(t *Thread) {
	if s := t.agents.self; s != nil && s.abort.Load() && !t.agents.finished {
		t.onAbort()
	}
	t.refreshSubagentLines()
}

// apply waits, on a worker, for the sub-agent's place in its parent's
// queue (taken in spawn order by the app) and then starts the first turn.
// A sub-agent aborted before this message arrived has given its place
// back already.
func (m msgLaunch) apply(t *Thread) {
	if t.agents.finished {
		return
	}
	ctx, cancel := context.WithCancel(t.ctx)
	t.agents.launchCancel = cancel
	ready := t.agents.self.ticket.ready
	t.workers.Add(1)
	go func() {
		defer t.workers.Done()
		select {
		case <-ready:
			t.enqueue(msgSlot(m))
		case <-ctx.Done():
		}
	}()
}

func (m msgSlot) apply(t *Thread) {
	a := &t.agents
	if a.finished {
		return
	}
	if a.self.abort.Load() {
		// Aborted while queued, the signal not handled yet: it must not
		// start on the place the abort of another sub-agent freed.
		t.onAbort()
		return
	}
	if _, err := t.providerFor(); err != nil {
		t.notice(view.NoticeError, err.Error())
		t.finishSubagent(tools.SubagentError, err.Error())
		return
	}
	s := a.self
	s.mu.Lock()
	s.status.state, s.status.started = subagentRunning, time.Now()
	s.mu.Unlock()
	s.parent.kickAgents()
	t.onSend(msgSend{text: m.task})
}

func (m msgYield) apply(t *Thread) {
	if !t.agents.finished {
		t.agents.yielded = &m.result
	}
}

// apply draws subs in the tool call that spawned or waits for them. A
// spawn whose call is no longer running was aborted before the parent
// learnt of its sub-agents: they are aborted too.
func (m msgWatch) apply(t *Thread) {
	var e *entry
	if tr := t.turn; tr != nil && tr.phase == phaseTools {
		for _, p := range tr.pending {
			if _, done := tr.results[p.id]; p.toolID == m.toolUseID && !done {
				e = p
			}
		}
	}
	if m.spawned {
		t.agents.children = append(t.agents.children, m.subs...)
		if e == nil {
			abortAll(m.subs)
		}
	}
	if e == nil {
		return
	}
	if len(e.subagents) == 0 {
		t.agents.shown = append(t.agents.shown, e)
	}
	// A blocking spawn waits for what it spawned: draw each one once.
	for _, s := range m.subs {
		if !slices.Contains(e.subagents, s) {
			e.subagents = append(e.subagents, s)
		}
	}
	t.refreshSubagentLines()
}

// observeForParent reports a sub-agent's end to its parent: an observer
// of TurnEnded (every thread has it; a thread that is no sub-agent
// ignores it).
func observeForParent(t *Thread, ev ThreadEvent) {
	if ended, ok := ev.(TurnEnded); ok {
		t.subagentTurnEnded(ended)
	}
}

// subagentTurnEnded decides whether a turn that ended ends the sub-agent.
// It delivers the result (yielded, aborted, failed), or reminds the model
// once to yield.
func (t *Thread) subagentTurnEnded(ended TurnEnded) {
	a := &t.agents
	if a.self == nil || a.finished || t.turn != nil {
		return
	}
	switch {
	case a.yielded != nil:
		t.finishSubagent(tools.SubagentDone, *a.yielded)
	case ended.Aborted || a.self.abort.Load():
		t.finishSubagent(tools.SubagentAborted, "the sub-agent was aborted")
	case !ended.Clean:
		t.finishSubagent(tools.SubagentError, ended.Failure)
	case !a.reminded:
		a.reminded = true
		t.onSend(msgSend{text: reminderText})
	default:
		t.finishSubagent(tools.SubagentDone, t.lastAssistantText())
	}
}

// yieldedNow reports whether the tool round that just ended yielded, so
// the turn ends instead of streaming again.
func (t *Thread) yieldedNow() bool {
	return t.agents.yielded != nil && !t.agents.finished
}

// abortSubagents aborts this thread's unfinished sub-agents and, for a
// queued sub-agent, the sub-agent itself (a running one ends with its
// turn). Called when the thread is aborted.
func (t *Thread) abortSubagents() {
	var running []*subagent
	for _, c := range t.agents.children {
		select {
		case <-c.done:
		default:
			running = append(running, c)
		}
	}
	abortAll(running)
	if t.agents.self != nil && !t.agents.finished && t.turn == nil {
		t.notice(view.NoticeInfo, "aborted")
		t.finishSubagent(tools.SubagentAborted, "the sub-agent was aborted before it started")
	}
}

// finishSubagent delivers the result, gives the place back and tells the
// parent.
func (t *Thread) finishSubagent(state, text string) {
	a := &t.agents
	s := a.self
	a.finished = true
	s.result = tools.SubagentResult{ID: t.ID, AgentType: s.agentType, State: state, Text: text}
	s.mu.Lock()
	s.status.state, s.status.ended = state, time.Now()
	if s.status.started.IsZero() {
		s.status.started = s.status.ended
	}
	s.mu.Unlock()
	close(s.done)
	s.parent.agents.limiter.giveBack(s.ticket)
	if a.launchCancel != nil {
		a.launchCancel()
	}
	s.parent.kickAgents()
}

// lastAssistantText is the last text the model wrote.
func (t *Thread) lastAssistantText() string {
	for i := len(t.messages) - 1; i >= 0; i-- {
		m := t.messages[i]
		if m.Role != "assistant" {
			continue
		}
		var parts []string
		for _, b := range m.Content {
			if b.Kind == "text" && strings.TrimSpace(b.Text) != "" {
				parts = append(parts, b.Text)
			}
		}
		if len(parts) > 0 {
			return strings.Join(parts, "\n")
		}
	}
	return "(the sub-agent ended without an answer)"
}

// reportSubagent publishes a sub-agent's title and tokens for its
// parent's line (called after each burst, from publish).
func (t *Thread) reportSubagent() {
	s := t.agents.self
	if s == nil {
		return
	}
	s.mu.Lock()
	s.status.title, s.status.tokens = t.title, t.agents.tokens
	now := s.status
	s.mu.Unlock()
	if now != t.agents.last {
		t.agents.last = now
		s.parent.kickAgents()
	}
}

// refreshSubagentLines redraws the sub-agent lines of the tool calls
// that show them (a status, an approval or the elapsed time changed).
func (t *Thread) refreshSubagentLines() {
	for _, e := range t.agents.shown {
		lines := make([]view.SubagentLine, len(e.subagents))
		for i, s := range e.subagents {
			lines[i] = t.subagentLine(s)
		}
		if !sameSubagentLines(e.tool.Subagents, lines) {
			e.tool.Subagents = lines
			t.touch(e)
		}
	}
}

func (t *Thread) subagentLine(s *subagent) view.SubagentLine {
	st := s.snapshot()
	label := st.title
	if label == "" {
		label = view.SubagentLabel(s.prompt)
	}
	line := view.SubagentLine{ID: s.thread.ID, Type: s.agentType, Label: label, Env: s.envLabel, State: st.state}
	if !st.started.IsZero() {
		end := st.ended
		if end.IsZero() {
			end = time.Now()
		}
		line.Detail = end.Sub(st.started).Truncate(time.Second).String()
	}
	if st.tokens > 0 {
		if line.Detail != "" {
			line.Detail += " · "
		}
		line.Detail += formatTokens(st.tokens)
	}
	if st.state == subagentRunning && t.deps.Broker != nil {
		if pending := t.deps.Broker.Pending(s.thread.ID); len(pending) > 0 {
			r := pending[0]
			line.Approval = t.viewApproval(r)
		}
	}
	return line
}

func formatTokens(n int) string {
	if n < 1000 {
		return fmt.Sprintf("%d tokens", n)
	}
	return fmt.Sprintf("%.1fk tokens", float64(n)/1000)
}

func sameSubagentLines(a, b []view.SubagentLine) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.ID != y.ID || x.Type != y.Type || x.Label != y.Label || x.Env != y.Env || x.State != y.State || x.Detail != y.Detail || !sameApproval(x.Approval, y.Approval) {
			return false
		}
	}
	return true
}

// parentHeader is the header fields that link a sub-agent to its parent.
func (t *Thread) parentHeader(h view.Header) view.Header {
	s := t.agents.self
	if s == nil {
		return h
	}
	h.ParentID, h.AgentType = s.parent.ID, s.agentType
	h.ParentTitle = t.agents.app.summaryOf(s.parent.ID).Title
	h.ActivateKey = view.DefaultApprovalKeys.Activate
	if t.deps.ApprovalKeys != nil {
		h.ActivateKey = t.deps.ApprovalKeys.Activate
	}
	return h
}

// parentID is the parent's id for the thread list ("" for the user's
// threads).
func (t *Thread) parentID() string {
	if t.agents.self == nil {
		return ""
	}
	return t.agents.self.parent.ID
}
