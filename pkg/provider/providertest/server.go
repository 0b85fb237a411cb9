package providertest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// Server is a scripted fake of the Anthropic Messages API on loopback
// HTTP, speaking its real SSE stream, for tests that run the built host
// binary (a separate process cannot be handed a Fake). Like Fake, a test
// awaits each request (Next) and answers it step by step; the response
// stays open between steps, so a test can kill the host mid-stream.
// Point a profile at it with provider = "anthropic", baseUrl = URL and
// an apiKeyEnvVar naming any non-empty variable.
type Server struct {
	URL   string
	srv   *httptest.Server
	calls chan *HTTPCall
}

// NewServer starts a Server, closed when the test ends.
func NewServer(t testing.TB) *Server {
	s := &Server{calls: make(chan *HTTPCall, 16)}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	t.Cleanup(s.srv.Close)
	return s
}

// HTTPCall is one request awaiting its script.
type HTTPCall struct {
	// Body is the request as JSON; Messages its "messages".
	Body     map[string]any
	Messages []Wire

	steps chan func(*sseWriter)
	ended chan struct{}
}

// Wire is a message of a request as sent.
type Wire struct {
	Role    string           `json:"role"`
	Content []map[string]any `json:"content"`
}

// Texts returns the text of the message's text blocks and tool results
// (each result's first text), in order.
func (m Wire) Texts() []string {
	var out []string
	for _, b := range m.Content {
		switch b["type"] {
		case "text":
			out = append(out, fmt.Sprint(b["text"]))
		case "tool_result":
			if c, ok := b["content"].([]any); ok && len(c) > 0 {
				if first, ok := c[0].(map[string]any); ok {
					out = append(out, fmt.Sprint(first["text"]))
				}
			}
		}
	}
	return out
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	c := &HTTPCall{steps: make(chan func(*sseWriter)), ended: make(chan struct{})}
	defer close(c.ended)
	var req struct {
		Messages []Wire `json:"messages"`
	}
	_ = json.Unmarshal(body, &c.Body)
	_ = json.Unmarshal(body, &req)
	c.Messages = req.Messages
	if r.URL.Path != "/v1/messages" {
		http.Error(w, `{"type":"error","error":{"type":"not_found_error","message":"no such path"}}`, http.StatusNotFound)
		return
	}
	select {
	case s.calls <- c:
	case <-r.Context().Done():
		return
	}
	w.Header().Set("content-type", "text/event-stream")
	sw := &sseWriter{w: w, open: -1}
	sw.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": "msg_test", "type": "message", "role": "assistant", "model": "fake", "content": []any{},
		"stop_reason": nil, "usage": map[string]any{"input_tokens": 10, "output_tokens": 1}}})
	for !sw.done {
		select {
		case step := <-c.steps:
			step(sw)
		case <-r.Context().Done():
			return
		}
	}
}

// Next waits up to DefaultWait for the next request.
func (s *Server) Next(t testing.TB) *HTTPCall {
	t.Helper()
	select {
	case c := <-s.calls:
		return c
	case <-time.After(DefaultWait):
		t.Fatalf("providertest: no request within %v", DefaultWait)
		return nil
	}
}

// NextWhile waits up to wait for the next request while a client
// process runs: when exited closes first, the test fails with what
// why() says (its stderr), not a bare timeout.
func (s *Server) NextWhile(t testing.TB, wait time.Duration, exited <-chan struct{}, why func() string) *HTTPCall {
	t.Helper()
	select {
	case c := <-s.calls:
		return c
	case <-exited:
		t.Fatalf("providertest: the client ended before sending a request:\n%s", why())
	case <-time.After(wait):
		t.Fatalf("providertest: no request within %v; the client's stderr so far:\n%s", wait, why())
	}
	return nil
}

// do runs step on the response's goroutine; false once it has ended
// (the client went away).
func (c *HTTPCall) do(step func(*sseWriter)) bool {
	done := make(chan struct{})
	select {
	case c.steps <- func(w *sseWriter) { step(w); close(done) }:
		<-done
		return true
	case <-c.ended:
		return false
	}
}

// Text streams s as one text delta.
func (c *HTTPCall) Text(s string) bool {
	return c.do(func(w *sseWriter) {
		if !w.openText {
			w.closeBlock()
			w.open++
			w.openText = true
			w.event("content_block_start", map[string]any{"type": "content_block_start", "index": w.open, "content_block": map[string]any{"type": "text", "text": ""}})
		}
		w.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": w.open, "delta": map[string]any{"type": "text_delta", "text": s}})
	})
}

// ToolUse streams a complete tool call.
func (c *HTTPCall) ToolUse(id, name string, input any) bool {
	raw, err := json.Marshal(input)
	if err != nil {
		panic(err)
	}
	return c.do(func(w *sseWriter) {
		w.closeBlock()
		w.open++
		w.event("content_block_start", map[string]any{"type": "content_block_start", "index": w.open, "content_block": map[string]any{"type": "tool_use", "id": id, "name": name, "input": map[string]any{}}})
		w.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": w.open, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(raw)}})
		w.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": w.open})
	})
}

// Stop ends the reply with reason ("end_turn", "tool_use").
func (c *HTTPCall) Stop(reason string) bool {
	return c.do(func(w *sseWriter) {
		w.closeBlock()
		w.event("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": reason}, "usage": map[string]any{"output_tokens": 5}})
		w.event("message_stop", map[string]any{"type": "message_stop"})
		w.done = true
	})
}

// Reply is Text(s) then Stop("end_turn").
func (c *HTTPCall) Reply(s string) bool { return c.Text(s) && c.Stop("end_turn") }

// Ended is closed when the response is over (answered or the client
// went away).
func (c *HTTPCall) Ended() <-chan struct{} { return c.ended }

type sseWriter struct {
	w        http.ResponseWriter
	open     int // index of the last block started
	openText bool
	done     bool
}

func (w *sseWriter) closeBlock() {
	if w.openText {
		w.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": w.open})
		w.openText = false
	}
}

func (w *sseWriter) event(name string, data any) {
	b, _ := json.Marshal(data)
	fmt.Fprintf(w.w, "event: %s\ndata: %s\n\n", name, b)
	if f, ok := w.w.(http.Flusher); ok {
		f.Flush()
	}
}
