package providertest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// AnthropicServer is a loopback fake of the Messages API speaking real
// HTTP and server-sent events: the n-th request is answered with the
// n-th Reply, and every request body is kept for the test to inspect on
// the wire. Safe for concurrent use.
type AnthropicServer struct {
	URL string

	mu      sync.Mutex
	replies []Reply
	bodies  [][]byte
}

// Reply is one streamed response: its blocks in order, and the stop
// reason ("end_turn", "tool_use").
type Reply struct {
	Blocks     []ReplyBlock
	StopReason string
	// Status, when set, answers with that HTTP status and an error body
	// of ErrorType and ErrorMessage instead of a stream.
	Status                  int
	ErrorType, ErrorMessage string
}

// ReplyBlock is one content block of a Reply. Type is "thinking"
// (Thinking streamed in Chunks pieces, then Signature), "redacted_thinking"
// (Data), "text" (Text) or "tool_use" (ID, Name, Input as JSON).
type ReplyBlock struct {
	Type                      string
	Thinking, Signature, Data string
	Text, ID, Name, Input     string
	Chunks                    int
	// Start and Deltas, for any other Type: the block content_block_start
	// carries and each content_block_delta's delta, as JSON (a server-side
	// tool's blocks, text with citations).
	Start  string
	Deltas []string
}

// NewAnthropicServer starts a server answering with replies in turn; a
// request beyond them gets a 500.
func NewAnthropicServer(t testing.TB, replies ...Reply) *AnthropicServer {
	s := &AnthropicServer{replies: replies}
	srv := httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// Bodies returns the request bodies received so far, in order.
func (s *AnthropicServer) Bodies() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]byte(nil), s.bodies...)
}

func (s *AnthropicServer) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	n := len(s.bodies)
	s.bodies = append(s.bodies, body)
	s.mu.Unlock()
	if n >= len(s.replies) {
		http.Error(w, `{"type":"error","error":{"type":"api_error","message":"no scripted reply"}}`, http.StatusInternalServerError)
		return
	}
	if r := s.replies[n]; r.Status != 0 {
		b, _ := json.Marshal(obj{"type": "error", "error": obj{"type": r.ErrorType, "message": r.ErrorMessage}})
		w.Header().Set("content-type", "application/json")
		w.WriteHeader(r.Status)
		w.Write(b)
		return
	}
	w.Header().Set("content-type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	writeReply(w, s.replies[n])
}

type obj = map[string]any

func writeReply(w http.ResponseWriter, r Reply) {
	event := func(name string, data obj) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	delta := func(i int, d obj) {
		event("content_block_delta", obj{"type": "content_block_delta", "index": i, "delta": d})
	}
	event("message_start", obj{"type": "message_start", "message": obj{
		"id": "msg_fake", "type": "message", "role": "assistant", "model": "fake",
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": obj{"input_tokens": 10, "output_tokens": 1}}})
	for i, b := range r.Blocks {
		start := func(block obj) {
			event("content_block_start", obj{"type": "content_block_start", "index": i, "content_block": block})
		}
		switch b.Type {
		case "thinking":
			start(obj{"type": "thinking", "thinking": "", "signature": ""})
			for _, piece := range split(b.Thinking, b.Chunks) {
				delta(i, obj{"type": "thinking_delta", "thinking": piece})
			}
			delta(i, obj{"type": "signature_delta", "signature": b.Signature})
		case "redacted_thinking":
			start(obj{"type": "redacted_thinking", "data": b.Data})
		case "text":
			start(obj{"type": "text", "text": ""})
			delta(i, obj{"type": "text_delta", "text": b.Text})
		case "tool_use":
			start(obj{"type": "tool_use", "id": b.ID, "name": b.Name, "input": obj{}})
			delta(i, obj{"type": "input_json_delta", "partial_json": b.Input})
		default:
			start(rawObj(b.Start))
			for _, d := range b.Deltas {
				delta(i, rawObj(d))
			}
		}
		event("content_block_stop", obj{"type": "content_block_stop", "index": i})
	}
	event("message_delta", obj{"type": "message_delta", "delta": obj{"stop_reason": r.StopReason, "stop_sequence": nil},
		"usage": obj{"output_tokens": 20}})
	event("message_stop", obj{"type": "message_stop"})
}

// split cuts s into n pieces of about equal length, on rune boundaries
// (JSON would mangle half a rune).
func split(s string, n int) []string {
	r := []rune(s)
	if n <= 1 || len(r) < n {
		return []string{s}
	}
	var out []string
	size := len(r) / n
	for len(r) > size && len(out) < n-1 {
		out = append(out, string(r[:size]))
		r = r[size:]
	}
	return append(out, string(r))
}

// rawObj decodes a scripted JSON object; a script that is not one is a
// bug in the test.
func rawObj(s string) obj {
	var o obj
	if err := json.Unmarshal([]byte(s), &o); err != nil {
		panic(fmt.Sprintf("providertest: %q is not a JSON object: %v", s, err))
	}
	return o
}
