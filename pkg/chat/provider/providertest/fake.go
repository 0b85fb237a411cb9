// Package providertest provides a scripted fake provider.Provider. A test
// awaits the next request the agent loop makes (Fake.Next), inspects it,
// and answers step by step, so states in the middle of a stream are
// observable.
package providertest

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/magenta-nvim/magenta/pkg/chat/provider"
)

// DefaultWait bounds how long Next waits for a request.
const DefaultWait = 10 * time.Second

// Fake is a provider.Provider driven by a test. Safe for concurrent use.
type Fake struct {
	calls chan *Call
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
	emit func(provider.Event)
	msg  provider.Message
	resp *provider.Response
	err  error
}

// Stream implements provider.Provider: it publishes the call and plays the
// steps the test sends until Stop, Fail or cancellation.
func (f *Fake) Stream(ctx context.Context, req provider.Request, emit func(provider.Event)) (*provider.Response, error) {
	c := &Call{Request: req, steps: make(chan func(*streamState)), ended: make(chan struct{})}
	defer close(c.ended)
	select {
	case f.calls <- c:
	case <-ctx.Done():
		return nil, ctx.Err()
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
		st.resp = &provider.Response{Message: st.msg, StopReason: reason, RawStopReason: string(reason)}
	})
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
		m := c.Request.Messages[i]
		if m.Role != provider.RoleUser {
			continue
		}
		s := ""
		for _, b := range m.Content {
			if b.Kind == provider.BlockText {
				s += b.Text
			}
		}
		return s
	}
	return ""
}
