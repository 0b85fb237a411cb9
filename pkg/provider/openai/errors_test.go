package openai

import (
	"context"
	"errors"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func statusReply(status int, header map[string]string, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for k, v := range header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}
}

func TestHTTPErrors(t *testing.T) {
	cases := []struct {
		name       string
		status     int
		header     map[string]string
		body       string
		kind       provider.ErrorKind
		retryable  bool
		retryAfter time.Duration
		typ, msg   string
	}{
		{"rate limit", 429, map[string]string{"Retry-After": "7"},
			`{"error":{"message":"slow down","type":"requests","code":"rate_limit_exceeded"}}`,
			provider.ErrRateLimit, true, 7 * time.Second, "requests", "slow down"},
		{"server", 500, nil, `{"error":{"message":"oops","type":"server_error"}}`,
			provider.ErrServer, true, 0, "server_error", "oops"},
		{"plain text server", 502, nil, "bad gateway\n", provider.ErrServer, true, 0, "", "bad gateway"},
		{"overloaded", 503, nil, `{"error":"model is loading"}`, provider.ErrOverloaded, true, 0, "", "model is loading"},
		{"auth", 401, nil, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`,
			provider.ErrAuth, false, 0, "invalid_request_error", "Incorrect API key provided"},
		{"bad request", 400, nil, `{"error":{"message":"max_tokens is too large","type":"invalid_request_error","param":"max_tokens"}}`,
			provider.ErrInvalid, false, 0, "invalid_request_error", "max_tokens is too large"},
		{"context length", 400, nil, `{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`,
			provider.ErrContextTooLong, false, 0, "invalid_request_error", "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens."},
		{"llama.cpp context", 400, nil, `{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error"}}`,
			provider.ErrContextTooLong, false, 0, "exceed_context_size_error", "the request exceeds the available context size, try increasing it"},
		{"vllm detail", 404, nil, `{"detail":"Not Found"}`, provider.ErrInvalid, false, 0, "", "Not Found"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs := newFakeServer(t, statusReply(c.status, c.header, c.body))
			_, events, err := run(t, fs.provider(t, "k"), simpleRequest())
			pe := requireProviderError(t, err, c.kind)
			assert.Equal(t, c.status, pe.Status)
			assert.Equal(t, c.retryable, pe.Retryable)
			assert.Equal(t, c.retryAfter, pe.RetryAfter)
			assert.Equal(t, c.typ, pe.Type)
			assert.Equal(t, c.msg, pe.Message)
			assert.Equal(t, c.retryable, provider.IsRetryable(err))
			assert.Empty(t, events)
		})
	}
}

func TestRetryAfterForms(t *testing.T) {
	now := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	h := http.Header{}
	h.Set("Retry-After", now.Add(30*time.Second).Format(http.TimeFormat))
	assert.Equal(t, 30*time.Second, retryAfter(h, now))
	h.Set("Retry-After-Ms", "1500")
	assert.Equal(t, 1500*time.Millisecond, retryAfter(h, now))
	assert.Equal(t, time.Duration(0), retryAfter(http.Header{"Retry-After": {"soon"}}, now))
}

func TestErrorChunkInStream(t *testing.T) {
	fs := newFakeServer(t, sseReply(textChunk("partial"),
		`{"error":{"message":"model crashed","type":"server_error","code":500}}`))
	_, events, err := run(t, fs.provider(t, ""), simpleRequest())
	pe := requireProviderError(t, err, provider.ErrStreamFailed)
	assert.Equal(t, "model crashed", pe.Message)
	assert.Equal(t, "server_error", pe.Type)
	assert.False(t, pe.Retryable)
	assert.Equal(t, []provider.Event{provider.TextDelta{Index: 0, Text: "partial"}}, events)

	fs = newFakeServer(t, sseReply(`{"error":{"message":"try later","type":"overloaded_error"}}`))
	_, _, err = run(t, fs.provider(t, ""), simpleRequest())
	pe = requireProviderError(t, err, provider.ErrStreamFailed)
	assert.True(t, pe.Retryable)
}

func TestConnectionDroppedMidStream(t *testing.T) {
	fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeSSEHeader(w)
		writeSSE(w, textChunk("half"))
		panic(http.ErrAbortHandler) // closes the connection without ending the body
	})
	_, events, err := run(t, fs.provider(t, ""), simpleRequest())
	pe := requireProviderError(t, err, provider.ErrConnection)
	assert.True(t, pe.Retryable)
	assert.Len(t, events, 1)
}

func TestStreamEndsWithoutFinish(t *testing.T) {
	fs := newFakeServer(t, sseReply(textChunk("half")))
	_, _, err := run(t, fs.provider(t, ""), simpleRequest())
	pe := requireProviderError(t, err, provider.ErrConnection)
	assert.True(t, pe.Retryable)
}

func TestDropAfterFinishStillSucceeds(t *testing.T) {
	fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeSSEHeader(w)
		writeSSE(w, textChunk("all"))
		writeSSE(w, finishChunk("stop"))
		panic(http.ErrAbortHandler)
	})
	resp, _, err := run(t, fs.provider(t, ""), simpleRequest())
	require.NoError(t, err)
	assert.Equal(t, provider.StopEndTurn, resp.StopReason)
}

func TestDialFailure(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())

	p, err := New(Options{BaseURL: "http://" + addr + "/v1"})
	require.NoError(t, err)
	_, _, err = run(t, p, simpleRequest())
	pe := requireProviderError(t, err, provider.ErrConnection)
	assert.True(t, pe.Retryable)
}

func TestGarbageIsProtocolError(t *testing.T) {
	fs := newFakeServer(t, sseReply("this is not json"))
	_, _, err := run(t, fs.provider(t, ""), simpleRequest())
	pe := requireProviderError(t, err, provider.ErrProtocol)
	assert.False(t, pe.Retryable)

	fs = newFakeServer(t, statusReply(200, map[string]string{"Content-Type": "application/json"},
		`{"id":"x","object":"chat.completion","choices":[]}`))
	_, _, err = run(t, fs.provider(t, ""), simpleRequest())
	requireProviderError(t, err, provider.ErrProtocol)
}

// blockingServer sends head (if any), tells the test via started, then
// blocks until the client goes away.
func blockingServer(t *testing.T, head ...string) (*fakeServer, <-chan struct{}) {
	started := make(chan struct{}, 1)
	fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request) {
		if len(head) > 0 {
			writeSSEHeader(w)
			for _, p := range head {
				writeSSE(w, p)
			}
		}
		started <- struct{}{}
		<-r.Context().Done()
	})
	return fs, started
}

func TestCancelWhileServerBlocks(t *testing.T) {
	for name, head := range map[string][]string{
		"before headers": nil,
		"mid stream":     {textChunk("thinking")},
	} {
		t.Run(name, func(t *testing.T) {
			fs, started := blockingServer(t, head...)
			p := fs.provider(t, "")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go func() {
				select {
				case <-started:
					cancel()
				case <-time.After(10 * time.Second):
				}
			}()
			errc := make(chan error, 1)
			go func() {
				_, err := p.Stream(ctx, simpleRequest(), func(provider.Event) {})
				errc <- err
			}()
			select {
			case err := <-errc:
				require.Error(t, err)
				assert.True(t, errors.Is(err, context.Canceled), "got %v", err)
			case <-time.After(5 * time.Second):
				t.Fatal("Stream did not return after cancel")
			}
		})
	}
}
