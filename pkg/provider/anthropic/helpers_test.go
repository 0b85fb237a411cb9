package anthropic

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/provider"
)

const testKey = "sk-test-key"

// testCtx is a context with a deadline, so that a hung test fails instead
// of blocking the run.
func testCtx(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// newTestProvider starts a local server running handler and returns a
// provider pointed at it.
func newTestProvider(t *testing.T, handler http.HandlerFunc) (provider.Provider, *httptest.Server) {
	t.Helper()
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	p, err := New(Options{BaseURL: srv.URL, APIKey: testKey, HTTPClient: srv.Client()})
	require.NoError(t, err)
	return p, srv
}

// streamingProvider returns a provider whose server answers every request
// with the stream script writes.
func streamingProvider(t *testing.T, script func(s *sse)) provider.Provider {
	t.Helper()
	p, _ := newTestProvider(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		script(startSSE(w))
	})
	return p
}

// collect runs one Stream and returns its events.
func collect(t testing.TB, p provider.Provider, req provider.Request) ([]provider.Event, *provider.Response, error) {
	t.Helper()
	var events []provider.Event
	resp, err := p.Stream(testCtx(t), req, func(e provider.Event) { events = append(events, e) })
	return events, resp, err
}

func simpleRequest() provider.Request {
	return provider.Request{
		Model:    "claude-test",
		Messages: []provider.Message{{Role: provider.RoleUser, Content: []provider.Block{provider.TextBlock("hi")}}},
	}
}

// requireProviderError asserts that err is a *provider.Error and returns it.
func requireProviderError(t *testing.T, err error) *provider.Error {
	t.Helper()
	require.Error(t, err)
	pe, ok := err.(*provider.Error)
	require.Truef(t, ok, "want *provider.Error, got %T: %v", err, err)
	return pe
}

// sse writes Anthropic's server-sent events.
type sse struct {
	w http.ResponseWriter
	f http.Flusher
}

func startSSE(w http.ResponseWriter) *sse {
	w.Header().Set("content-type", "text/event-stream")
	w.Header().Set("cache-control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	s := &sse{w: w, f: f}
	s.flush()
	return s
}

func (s *sse) flush() {
	if s.f != nil {
		s.f.Flush()
	}
}

// event writes one event; data is sent as is when it is a string, else as
// JSON.
func (s *sse) event(name string, data any) {
	var payload string
	if str, ok := data.(string); ok {
		payload = str
	} else {
		b, err := json.Marshal(data)
		if err != nil {
			panic(err)
		}
		payload = string(b)
	}
	fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", name, payload)
	s.flush()
}

type obj = map[string]any

func (s *sse) messageStart(inputTokens int) {
	s.event("message_start", obj{"type": "message_start", "message": obj{
		"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-test",
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": obj{"input_tokens": inputTokens, "output_tokens": 1},
	}})
}

// messageStartCached is message_start for a prompt that was partly read
// from and partly written to the prompt cache, as the API reports it:
// input_tokens counts only the uncached rest.
func (s *sse) messageStartCached(inputTokens, cacheRead, cacheWrite int) {
	s.event("message_start", obj{"type": "message_start", "message": obj{
		"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-test",
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": obj{"input_tokens": inputTokens, "output_tokens": 1,
			"cache_read_input_tokens": cacheRead, "cache_creation_input_tokens": cacheWrite},
	}})
}

func (s *sse) ping() { s.event("ping", obj{"type": "ping"}) }

func (s *sse) blockStart(index int, block obj) {
	s.event("content_block_start", obj{"type": "content_block_start", "index": index, "content_block": block})
}

func (s *sse) textStart(index int) { s.blockStart(index, obj{"type": "text", "text": ""}) }

func (s *sse) toolStart(index int, id, name string) {
	s.blockStart(index, obj{"type": "tool_use", "id": id, "name": name, "input": obj{}})
}

func (s *sse) delta(index int, delta obj) {
	s.event("content_block_delta", obj{"type": "content_block_delta", "index": index, "delta": delta})
}

func (s *sse) textDelta(index int, text string) {
	s.delta(index, obj{"type": "text_delta", "text": text})
}

func (s *sse) jsonDelta(index int, partial string) {
	s.delta(index, obj{"type": "input_json_delta", "partial_json": partial})
}

func (s *sse) blockStop(index int) {
	s.event("content_block_stop", obj{"type": "content_block_stop", "index": index})
}

func (s *sse) messageDelta(stopReason string, outputTokens int) {
	s.event("message_delta", obj{"type": "message_delta",
		"delta": obj{"stop_reason": stopReason, "stop_sequence": nil},
		"usage": obj{"output_tokens": outputTokens}})
}

func (s *sse) messageStop() { s.event("message_stop", obj{"type": "message_stop"}) }

func (s *sse) errorEvent(typ, message string) {
	s.event("error", obj{"type": "error", "error": obj{"type": typ, "message": message}})
}

// textMessage writes a complete message holding one text block.
func (s *sse) textMessage(stopReason string, parts ...string) {
	s.messageStart(10)
	s.textStart(0)
	for _, p := range parts {
		s.textDelta(0, p)
	}
	s.blockStop(0)
	s.messageDelta(stopReason, 5)
	s.messageStop()
}
