package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/stretchr/testify/require"
)

// captured is what the fake server saw of a request.
type captured struct {
	Path   string
	Header http.Header
	Body   map[string]any
}

// fakeServer is a loopback Chat Completions server whose reply is the
// handler given to newFakeServer. Every request is recorded.
type fakeServer struct {
	*httptest.Server
	requests chan captured
}

func newFakeServer(t *testing.T, reply http.HandlerFunc) *fakeServer {
	t.Helper()
	fs := &fakeServer{requests: make(chan captured, 8)}
	fs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		c := captured{Path: r.URL.Path, Header: r.Header.Clone()}
		_ = json.Unmarshal(raw, &c.Body)
		select {
		case fs.requests <- c:
		default:
		}
		reply(w, r)
	}))
	t.Cleanup(fs.Close)
	return fs
}

// lastRequest returns the request the server recorded.
func (fs *fakeServer) lastRequest(t *testing.T) captured {
	t.Helper()
	select {
	case c := <-fs.requests:
		return c
	case <-time.After(5 * time.Second):
		t.Fatal("server saw no request")
		return captured{}
	}
}

// provider returns a Provider pointed at fs with BaseURL ".../v1" (no
// trailing slash).
func (fs *fakeServer) provider(t *testing.T, key string) provider.Provider {
	t.Helper()
	p, err := New(Options{BaseURL: fs.URL + "/v1", APIKey: key, HTTPClient: fs.Client()})
	require.NoError(t, err)
	return p
}

// sseReply answers with the given data payloads as an event stream,
// flushing after each one.
func sseReply(payloads ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		writeSSEHeader(w)
		for _, p := range payloads {
			writeSSE(w, p)
		}
	}
}

func writeSSEHeader(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
}

func writeSSE(w http.ResponseWriter, payload string) {
	fmt.Fprintf(w, "data: %s\n\n", payload)
	w.(http.Flusher).Flush()
}

const done = "[DONE]"

func chunk(choices ...map[string]any) string {
	if choices == nil {
		choices = []map[string]any{}
	}
	b, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1700000000,
		"model": "test-model", "choices": choices,
	})
	return string(b)
}

func choice(delta map[string]any, finish any) map[string]any {
	return map[string]any{"index": 0, "delta": delta, "finish_reason": finish}
}

func textChunk(s string) string { return chunk(choice(map[string]any{"content": s}, nil)) }

func roleChunk() string {
	return chunk(choice(map[string]any{"role": "assistant", "content": ""}, nil))
}

func finishChunk(reason string) string { return chunk(choice(map[string]any{}, reason)) }

// tc is one tool_calls[] delta entry; empty strings are omitted.
func tc(index int, id, name, args string) map[string]any {
	fn := map[string]any{}
	if name != "" {
		fn["name"] = name
	}
	if args != "" || name != "" {
		fn["arguments"] = args
	}
	tc := map[string]any{"index": index, "function": fn}
	if id != "" {
		tc["id"] = id
		tc["type"] = "function"
	}
	return tc
}

func toolChunk(calls ...map[string]any) string {
	return chunk(choice(map[string]any{"tool_calls": calls}, nil))
}

func usageChunk(prompt, completion int) string {
	return usageChunkWith(map[string]any{"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion})
}

// cachedUsageChunk is the final usage chunk of a request whose prompt was
// partly served from the provider's prefix cache.
func cachedUsageChunk(prompt, cached, completion int) string {
	return usageChunkWith(map[string]any{
		"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion,
		"prompt_tokens_details":     map[string]any{"cached_tokens": cached, "audio_tokens": 0},
		"completion_tokens_details": map[string]any{"reasoning_tokens": 0},
	})
}

func usageChunkWith(usage map[string]any) string {
	b, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1700000000,
		"model": "test-model", "choices": []any{}, "usage": usage,
	})
	return string(b)
}

// run streams req through p with a deadline and collects the events.
func run(t *testing.T, p provider.Provider, req provider.Request) (*provider.Response, []provider.Event, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var events []provider.Event
	resp, err := p.Stream(ctx, req, func(e provider.Event) { events = append(events, e) })
	return resp, events, err
}

func simpleRequest() provider.Request {
	return provider.Request{
		Model:    "test-model",
		Messages: []provider.Message{{Role: provider.RoleUser, Content: []provider.Block{provider.TextBlock("hi")}}},
	}
}

// requireProviderError asserts err is a *provider.Error of kind and
// returns it.
func requireProviderError(t *testing.T, err error, kind provider.ErrorKind) *provider.Error {
	t.Helper()
	require.Error(t, err)
	pe, ok := err.(*provider.Error)
	require.Truef(t, ok, "want *provider.Error, got %T: %v", err, err)
	require.Equal(t, kind, pe.Kind, "error: %v", err)
	return pe
}
