// Package providertest provides a scripted fake provider.Provider. A test
// awaits the next request the agent loop makes (Fake.Next), inspects it,
// and answers step by step, so states in the middle of a stream are
// observable.
package providertest

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/magenta-nvim/magenta/pkg/provider"
)

// DefaultWait bounds how long Next waits for a request.
const DefaultWait = 10 * time.Second

// Fake is a provider.Provider driven by a test. Safe for concurrent use.
type Fake struct {
	calls chan *Call

	mu    sync.Mutex
	serve func(*Call)
}

// Serve makes every later request play script on a goroutine of its own
// instead of waiting for Next, so concurrent conversations (sub-agents)
// are answered by what each request contains. script drives the Call as
// a test would (Text, ToolUse, Stop, …); nil goes back to Next.
func (f *Fake) Serve(script func(*Call)) {
	f.mu.Lock()
	f.serve = script
	f.mu.Unlock()
}

// New returns a Fake with no pending calls.
func New() *Fake { return &Fake{calls: make(chan *Call, 16)} }

// Call is one Stream invocation awaiting its script.
type Call struct {
	Request provider.Request

	steps chan func(*streamState)
	ended chan struct{}
}

type streamState struct {
	emit  func(provider.Event)
	msg   provider.Message
	usage provider.Usage
	resp  *provider.Response
	err   error
}

// Stream implements provider.Provider: it publishes the call and plays the
// steps the test sends until Stop, Fail or cancellation.
func (f *Fake) Stream(ctx context.Context, req provider.Request, emit func(provider.Event)) (*provider.Response, error) {
	c := &Call{Request: req, steps: make(chan func(*streamState)), ended: make(chan struct{})}
	defer close(c.ended)
	f.mu.Lock()
	script := f.serve
	f.mu.Unlock()
	if script != nil {
		// The script's steps wait for this loop; once the stream has
		// ended they return false, so the goroutine ends with it.
		go script(c)
	} else {
		select {
		case f.calls <- c:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	st := &streamState{emit: emit, msg: provider.Message{Role: provider.RoleAssistant}}
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case step := <-c.steps:
			step(st)
			if st.resp != nil || st.err != nil {
				return st.resp, st.err
			}
		}
	}
}

// Next waits up to DefaultWait for the next request.
func (f *Fake) Next(t testing.TB) *Call {
	t.Helper()
	select {
	case c := <-f.calls:
		return c
	case <-time.After(DefaultWait):
		t.Fatalf("providertest: no request within %v", DefaultWait)
		return nil
	}
}

// Ended is closed when the Stream call has returned (answered, failed or
// cancelled).
func (c *Call) Ended() <-chan struct{} { return c.ended }

// do runs step on the stream goroutine and returns once it has run, or
// false when the stream has already ended.
func (c *Call) do(step func(*streamState)) bool {
	done := make(chan struct{})
	select {
	case c.steps <- func(st *streamState) { step(st); close(done) }:
		<-done
		return true
	case <-c.ended:
		return false
	}
}

// Text streams s as one text delta.
func (c *Call) Text(s string) bool {
	return c.do(func(st *streamState) {
		n := len(st.msg.Content)
		if n == 0 || st.msg.Content[n-1].Kind != provider.BlockText {
			st.msg.Content = append(st.msg.Content, provider.TextBlock(""))
			n++
		}
		st.msg.Content[n-1].Text += s
		st.emit(provider.TextDelta{Index: n - 1, Text: s})
	})
}

// Thinking streams s as one delta of a thinking block, which the
// response keeps with signature (extending the block when the last one
// is thinking).
func (c *Call) Thinking(s, signature string) bool {
	return c.do(func(st *streamState) {
		n := len(st.msg.Content)
		if n == 0 || st.msg.Content[n-1].Kind != provider.BlockThinking {
			st.msg.Content = append(st.msg.Content, provider.Block{Kind: provider.BlockThinking})
			n++
		}
		st.msg.Content[n-1].Thinking += s
		st.msg.Content[n-1].Signature = signature
		st.emit(provider.ThinkingDelta{Index: n - 1, Text: s})
	})
}

// ToolUse streams a complete tool call; input is marshalled to JSON
// unless it is already a json.RawMessage.
func (c *Call) ToolUse(id, name string, input any) bool {
	raw, ok := input.(json.RawMessage)
	if !ok {
		var err error
		if raw, err = json.Marshal(input); err != nil {
			panic(err)
		}
	}
	return c.do(func(st *streamState) {
		idx := len(st.msg.Content)
		st.msg.Content = append(st.msg.Content, provider.Block{Kind: provider.BlockToolUse, ToolUseID: id, ToolName: name, Input: raw})
		st.emit(provider.ToolUseStart{Index: idx, ID: id, Name: name})
		st.emit(provider.ToolUseDelta{Index: idx, PartialJSON: string(raw)})
	})
}

// Stop ends the stream successfully with reason.
func (c *Call) Stop(reason provider.StopReason) bool {
	return c.do(func(st *streamState) {
		st.resp = &provider.Response{Message: st.msg, StopReason: reason, RawStopReason: string(reason), Usage: st.usage}
	})
}

// Usage sets the token counts the response reports when it stops.
func (c *Call) Usage(u provider.Usage) bool {
	return c.do(func(st *streamState) { st.usage = u })
}

// Fail ends the stream with err.
func (c *Call) Fail(err error) bool {
	return c.do(func(st *streamState) { st.err = err })
}

// Reply is shorthand for Text(s) then Stop(StopEndTurn).
func (c *Call) Reply(s string) bool {
	return c.Text(s) && c.Stop(provider.StopEndTurn)
}

// LastUserText returns the text of the last user message's text blocks.
func (c *Call) LastUserText() string {
	for i := len(c.Request.Messages) - 1; i >= 0; i-- {
		if m := c.Request.Messages[i]; m.Role == provider.RoleUser {
			return textOf(m)
		}
	}
	return ""
}

// FirstUserText returns the text of the first user message's text blocks
// (a sub-agent's task).
func (c *Call) FirstUserText() string {
	for _, m := range c.Request.Messages {
		if m.Role == provider.RoleUser {
			return textOf(m)
		}
	}
	return ""
}

// textOf joins a message's text blocks.
func textOf(m provider.Message) string {
	s := ""
	for _, b := range m.Content {
		if b.Kind == provider.BlockText {
			s += b.Text
		}
	}
	return s
}

// Results returns the tool results of the last message by tool-use id.
func (c *Call) Results() map[string]provider.Block {
	out := map[string]provider.Block{}
	if n := len(c.Request.Messages); n > 0 {
		for _, b := range c.Request.Messages[n-1].Content {
			if b.Kind == provider.BlockToolResult {
				out[b.ToolUseID] = b
			}
		}
	}
	return out
}
