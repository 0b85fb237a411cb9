package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/magenta-nvim/magenta/pkg/chat"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// progressInterval is how often at most a running tool call's content is
// sent again (4 updates a second): a command's output and its
// sub-agents' progress change far more often than a client needs to
// redraw.
const progressInterval = 250 * time.Millisecond

// Shown of a sub-agent: its last subagentLines lines, each cut at
// progressLineChars.
const (
	subagentLines     = 6
	progressLineChars = 160
	labelWords        = 8
)

// progress reports what happens inside a session's running tool calls
// as their content (tool_call_update), at most every progressInterval:
// a command's latest output lines (its tools.Live), and what the
// sub-agents a spawn_subagents or wait_for_subagents call watches are
// doing — their tool calls, results and messages, one text block per
// sub-agent. A call's final result replaces that content when it ends.
//
// It learns of calls from two sides: the interceptor (Intercept, on the
// call's worker, where the call's Live and input are) and the observer
// (on the thread's goroutine: started, ended, the turn's end, and every
// event of a sub-agent). Nothing is sent for a call before its
// tool_call, nor after its end: the ticker sends under mu, and the
// observer removes the call under mu before it sends the end. Safe for
// concurrent use.
type progress struct {
	out *updates
	// describe summarises a tool call ("$ ls"); "" when the tool does not.
	describe func(name string, input json.RawMessage) string
	// isSession reports whether a thread is one of the client's sessions
	// (it takes the agent's lock: never called under mu).
	isSession func(id string) bool

	mu sync.Mutex
	// calls are the sessions' tool calls running now.
	calls map[callKey]*running
	// children are the sub-agents seen, by thread id.
	children map[string]*child
	// spawns are sub-agents asked for and not started yet.
	spawns []pendingSpawn
	wake   chan struct{}
	stop   chan struct{}
	done   chan struct{}
}

// callKey is a tool call: its thread and id.
type callKey struct{ thread, id string }

// running is a session's tool call that runs.
type running struct {
	session, id string
	// started: its tool_call was sent; until then nothing else is.
	started bool
	// live is the call's output while its tool runs (nil once it
	// returned); seq the last state of it sent.
	live *tools.Live
	seq  uint64
	// kids are the sub-agents reporting here; dirty: they changed since
	// the last send.
	kids  []*child
	dirty bool
}

// child is a sub-agent: what it reports to, and its lines.
type child struct {
	id, label, agentType string
	session              string
	target               *running // nil: no running call shows it
	state                string
	lines                []string
}

// pendingSpawn is a sub-agent a spawn call asked for whose thread has not
// said its first message yet: it is recognised by its prompt.
type pendingSpawn struct {
	owner callKey
	// ownerIsSession: the spawn call is a session's (not a sub-agent's).
	ownerIsSession    bool
	session           string
	prompt, agentType string
}

func newProgress(out *updates, isSession func(string) bool, describe func(string, json.RawMessage) string) *progress {
	p := &progress{
		out: out, isSession: isSession, describe: describe,
		calls: map[callKey]*running{}, children: map[string]*child{},
		wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}),
	}
	go p.run()
	return p
}

// close stops the ticker.
func (p *progress) close() {
	close(p.stop)
	<-p.done
}

// call returns the running call, made on first sight (under mu).
func (p *progress) call(session, id string) *running {
	k := callKey{session, id}
	r := p.calls[k]
	if r == nil {
		r = &running{session: session, id: id}
		p.calls[k] = r
	}
	return r
}

// Intercept implements tools.Interceptor: a session's call shows its
// output while it runs; a spawn or wait call shows its sub-agents.
func (p *progress) Intercept(ctx context.Context, name string, call tools.Call, next tools.Next) tools.Result {
	session := p.isSession(call.ThreadID)
	p.mu.Lock()
	if ctx.Err() == nil { // a call cut short before it began leaves nothing behind
		if session {
			p.call(call.ThreadID, call.ID).live = call.Live
		}
		switch name {
		case "spawn_subagents":
			p.spawnAsked(callKey{call.ThreadID, call.ID}, session, call.Input)
		case "wait_for_subagents":
			p.waitAsked(callKey{call.ThreadID, call.ID}, session, call.Input)
		}
	}
	p.mu.Unlock()
	p.kick()
	res := next(ctx)
	if session {
		p.mu.Lock()
		if r := p.calls[callKey{call.ThreadID, call.ID}]; r != nil {
			r.live = nil // the result follows
		}
		p.mu.Unlock()
	}
	return res
}

// spawnAsked notes the sub-agents a spawn call asks for (under mu).
func (p *progress) spawnAsked(owner callKey, session bool, input json.RawMessage) {
	var in struct {
		Agents []struct {
			Prompt    string `json:"prompt"`
			AgentType string `json:"agentType"`
		} `json:"agents"`
	}
	if json.Unmarshal(input, &in) != nil {
		return
	}
	sess := owner.thread
	if !session {
		c := p.children[owner.thread]
		if c == nil {
			return // a sub-agent nobody is shown
		}
		sess = c.session
	}
	for _, a := range in.Agents {
		if strings.TrimSpace(a.Prompt) == "" {
			continue
		}
		typ := a.AgentType
		if typ == "" {
			typ = tools.DefaultAgentType
		}
		p.spawns = append(p.spawns, pendingSpawn{owner: owner, ownerIsSession: session, session: sess, prompt: a.Prompt, agentType: typ})
	}
}

// waitAsked shows the sub-agents a wait call waits for in it (under mu).
func (p *progress) waitAsked(owner callKey, session bool, input json.RawMessage) {
	var in tools.WaitForSubagentsParams
	if json.Unmarshal(input, &in) != nil {
		return
	}
	target := p.targetOf(owner, session)
	if target == nil {
		return
	}
	for _, id := range in.IDs {
		c := p.children[id]
		if c == nil {
			if !session {
				continue
			}
			c = &child{id: id, label: id, session: target.session, state: "running"}
			p.children[id] = c
		}
		p.attach(c, target)
	}
}

// targetOf is the session call that shows what the call owner watches:
// the call itself in a session (nil once it ended), the call that shows
// the sub-agent otherwise (under mu).
func (p *progress) targetOf(owner callKey, session bool) *running {
	if session {
		return p.calls[owner]
	}
	if c := p.children[owner.thread]; c != nil {
		return c.target
	}
	return nil
}

// attach makes c report to target (under mu).
func (p *progress) attach(c *child, target *running) {
	if c.target == target {
		return
	}
	if c.target != nil {
		c.target.kids = remove(c.target.kids, c)
		c.target.dirty = true
	}
	c.target = target
	if target != nil {
		target.kids = append(target.kids, c)
		target.dirty = true
	}
}

func remove(kids []*child, c *child) []*child {
	out := kids[:0]
	for _, k := range kids {
		if k != c {
			out = append(out, k)
		}
	}
	return out
}

// started notes a session call's tool_call (sent by the caller under
// this lock's protection: call it before sending).
func (p *progress) started(session, id string) {
	p.mu.Lock()
	p.call(session, id).started = true
	p.mu.Unlock()
	p.kick()
}

// ended forgets a session call before its end is sent: nothing about it
// is sent after. Its sub-agents that still run report nowhere until a
// wait call shows them.
func (p *progress) ended(session, id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.forget(callKey{session, id})
}

// forget drops a call (under mu).
func (p *progress) forget(k callKey) {
	r := p.calls[k]
	if r == nil {
		return
	}
	delete(p.calls, k)
	for _, c := range r.kids {
		c.target = nil
		if c.state != "running" {
			delete(p.children, c.id)
		}
	}
}

// turnEnded forgets what the session's turn left running and returns the
// calls that never ended (an abort cuts them short: the client is told
// they failed). Sub-agents asked for and not started are forgotten.
func (p *progress) turnEnded(session string) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var cut []string
	for k, r := range p.calls {
		if k.thread == session {
			if r.started {
				cut = append(cut, k.id)
			}
			p.forget(k)
		}
	}
	kept := p.spawns[:0]
	for _, s := range p.spawns {
		if s.session != session {
			kept = append(kept, s)
		}
	}
	p.spawns = kept
	return cut
}

// subagent takes an event of a sub-agent's thread.
func (p *progress) subagent(id string, ev chat.ThreadEvent) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.children[id]
	if c == nil {
		m, ok := ev.(chat.MessageAppended)
		if !ok || m.Message.Role != provider.RoleUser {
			return
		}
		if c = p.recognise(id, m.Message); c == nil {
			return
		}
	}
	line := ""
	switch ev := ev.(type) {
	case chat.ToolCallStarted:
		c.state = "running"
		line = "→ " + ev.Name
		if d := p.describe(ev.Name, ev.Input); d != "" {
			line += ": " + d
		}
	case chat.ToolCallEnded:
		mark := "✓ "
		if ev.Result.IsError {
			mark = "✗ "
		}
		line = mark + ev.Name
		if s := firstLine(ev.Result.Summary); s != "" {
			line += ": " + s
		} else if s := firstLine(ev.Result.Text); s != "" {
			line += ": " + s
		}
	case chat.MessageAppended:
		if ev.Message.Role != provider.RoleAssistant {
			break
		}
		for _, b := range ev.Message.Content {
			if b.Kind == provider.BlockText && strings.TrimSpace(b.Text) != "" {
				line = "“" + firstLine(b.Text) + "”"
			}
		}
	case chat.TurnEnded:
		switch {
		case ev.Aborted:
			c.state = "aborted"
		case ev.Failure != "":
			c.state = "failed"
			line = "✗ " + firstLine(ev.Failure)
		default:
			c.state = "done"
		}
	}
	if line != "" {
		c.lines = append(c.lines, cut(line, progressLineChars))
		if len(c.lines) > subagentLines {
			c.lines = c.lines[len(c.lines)-subagentLines:]
		}
	}
	if c.target != nil {
		c.target.dirty = true
		p.kick()
	} else if c.state != "running" {
		delete(p.children, c.id) // nothing shows it, nothing will
	}
}

// recognise finds the spawn that asked for the sub-agent whose first
// message is m, by its prompt (the message ends with it, after any
// context files), and makes the sub-agent's child (under mu).
func (p *progress) recognise(id string, m provider.Message) *child {
	var text strings.Builder
	for _, b := range m.Content {
		if b.Kind == provider.BlockText {
			text.WriteString(b.Text)
		}
	}
	first := strings.TrimSpace(text.String())
	for i, s := range p.spawns {
		if !strings.HasSuffix(first, strings.TrimSpace(s.prompt)) {
			continue
		}
		p.spawns = append(p.spawns[:i], p.spawns[i+1:]...)
		c := &child{id: id, label: label(s.prompt), agentType: s.agentType, session: s.session, state: "running"}
		p.children[id] = c
		p.attach(c, p.targetOf(s.owner, s.ownerIsSession))
		return c
	}
	return nil
}

// sessionOf is the session a sub-agent reports to.
func (p *progress) sessionOf(thread string) (string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c := p.children[thread]; c != nil {
		return c.session, true
	}
	return "", false
}

// kick wakes the ticker.
func (p *progress) kick() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// run sends what changed every progressInterval while calls run; idle,
// it waits for a kick.
func (p *progress) run() {
	defer close(p.done)
	tick := time.NewTicker(progressInterval)
	defer tick.Stop()
	for {
		if p.idle() {
			select {
			case <-p.stop:
				return
			case <-p.wake:
			}
		}
		select {
		case <-p.stop:
			return
		case <-tick.C:
			p.send()
		}
	}
}

// idle reports whether no call could have anything to show.
func (p *progress) idle() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, r := range p.calls {
		if r.live != nil || len(r.kids) > 0 || r.dirty {
			return false
		}
	}
	return true
}

// send sends the content of every started call that changed.
func (p *progress) send() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, r := range p.calls {
		if !r.started {
			continue
		}
		snap := r.live.Snapshot() // zero for nil
		liveChanged := r.live != nil && snap.Seq != r.seq && len(snap.Lines) > 0
		if !liveChanged && !r.dirty {
			continue
		}
		r.seq, r.dirty = snap.Seq, false
		var content []sdk.ToolCallContent
		if len(snap.Lines) > 0 {
			content = append(content, sdk.ToolContent(sdk.TextBlock(liveText(snap))))
		}
		for _, c := range r.kids {
			content = append(content, sdk.ToolContent(sdk.TextBlock(c.text())))
		}
		if len(content) == 0 {
			continue
		}
		p.out.send(r.session, sdk.UpdateToolCall(sdk.ToolCallId(r.id), sdk.WithUpdateContent(content)))
	}
}

// liveText is a running command's latest lines, fenced.
func liveText(s tools.LiveSnapshot) string {
	var b strings.Builder
	if more := s.Total - len(s.Lines); more > 0 {
		fmt.Fprintf(&b, "… %d earlier lines\n", more)
	}
	b.WriteString("```\n")
	for _, l := range s.Lines {
		b.WriteString(cut(l, progressLineChars))
		b.WriteByte('\n')
	}
	b.WriteString("```")
	return b.String()
}

// text is the sub-agent's block: a heading, then its last lines.
func (c *child) text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "**sub-agent %s**", c.label)
	if c.agentType != "" {
		fmt.Fprintf(&b, " (%s)", c.agentType)
	}
	fmt.Fprintf(&b, ": %s", c.state)
	for _, l := range c.lines {
		b.WriteString("\n  ")
		b.WriteString(l)
	}
	return b.String()
}

// label is a sub-agent's name for the client: its prompt's first words.
func label(prompt string) string {
	words := strings.Fields(prompt)
	if len(words) > labelWords {
		return strings.Join(words[:labelWords], " ") + "…"
	}
	return strings.Join(words, " ")
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return strings.TrimSpace(s[:i]) + " …"
	}
	return s
}

// cut shortens s to n runes.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
