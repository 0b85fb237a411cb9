package anthropic

import (
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/provider"
)

func TestHTTPErrors(t *testing.T) {
	cases := []struct {
		name    string
		status  int
		header  map[string]string
		body    string
		want    provider.Error // Err is not compared
		wantMsg string
	}{
		{
			name:   "429 with retry-after",
			status: 429,
			header: map[string]string{"retry-after": "3"},
			body:   `{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}`,
			want: provider.Error{Kind: provider.ErrRateLimit, Status: 429, Type: "rate_limit_error", Retryable: true, RetryAfter: 3 * time.Second,
				Message: "Number of request tokens has exceeded your per-minute rate limit"},
		},
		{
			name:   "529 overloaded",
			status: 529,
			body:   `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
			want:   provider.Error{Kind: provider.ErrOverloaded, Status: 529, Type: "overloaded_error", Retryable: true, Message: "Overloaded"},
		},
		{
			name:   "500 with overloaded_error type",
			status: 500,
			body:   `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
			want:   provider.Error{Kind: provider.ErrOverloaded, Status: 500, Type: "overloaded_error", Retryable: true, Message: "Overloaded"},
		},
		{
			name:   "401",
			status: 401,
			body:   `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`,
			want:   provider.Error{Kind: provider.ErrAuth, Status: 401, Type: "authentication_error", Message: "invalid x-api-key"},
		},
		{
			name:   "400 invalid request",
			status: 400,
			body:   `{"type":"error","error":{"type":"invalid_request_error","message":"messages: roles must alternate between \"user\" and \"assistant\""}}`,
			want: provider.Error{Kind: provider.ErrInvalid, Status: 400, Type: "invalid_request_error",
				Message: `messages: roles must alternate between "user" and "assistant"`},
		},
		{
			name:   "400 prompt too long",
			status: 400,
			body:   `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210345 tokens > 200000 maximum"}}`,
			want: provider.Error{Kind: provider.ErrContextTooLong, Status: 400, Type: "invalid_request_error",
				Message: "prompt is too long: 210345 tokens > 200000 maximum"},
		},
		{
			name:   "502 from a proxy, not JSON",
			status: 502,
			header: map[string]string{"content-type": "text/html"},
			body:   "<html>Bad Gateway</html>\n",
			want:   provider.Error{Kind: provider.ErrServer, Status: 502, Retryable: true, Message: "<html>Bad Gateway</html>"},
		},
		{
			name:   "503 empty body with retry-after-ms",
			status: 503,
			header: map[string]string{"retry-after-ms": "1500"},
			want:   provider.Error{Kind: provider.ErrOverloaded, Status: 503, Retryable: true, RetryAfter: 1500 * time.Millisecond, Message: "Service Unavailable"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := newTestProvider(t, func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				w.Header().Set("content-type", "application/json")
				for k, v := range tc.header {
					w.Header().Set(k, v)
				}
				w.WriteHeader(tc.status)
				_, _ = io.WriteString(w, tc.body)
			})
			events, resp, err := collect(t, p, simpleRequest())
			assert.Nil(t, resp)
			assert.Empty(t, events)
			pe := requireProviderError(t, err)
			assert.NotNil(t, pe.Err)
			got := *pe
			got.Err = nil
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestSSEErrorEventAfterText(t *testing.T) {
	cases := []struct {
		typ       string
		kind      provider.ErrorKind
		retryable bool
	}{
		{"overloaded_error", provider.ErrOverloaded, true},
		{"rate_limit_error", provider.ErrRateLimit, true},
		{"api_error", provider.ErrServer, true},
		{"invalid_request_error", provider.ErrStreamFailed, false},
	}
	for _, tc := range cases {
		t.Run(tc.typ, func(t *testing.T) {
			p := streamingProvider(t, func(s *sse) {
				s.messageStart(10)
				s.textStart(0)
				s.textDelta(0, "Partial ")
				s.textDelta(0, "answer")
				s.errorEvent(tc.typ, "Something went wrong")
			})
			events, resp, err := collect(t, p, simpleRequest())
			assert.Nil(t, resp)
			assert.Equal(t, []provider.Event{
				provider.TextDelta{Index: 0, Text: "Partial "},
				provider.TextDelta{Index: 0, Text: "answer"},
			}, events)
			pe := requireProviderError(t, err)
			assert.Equal(t, tc.kind, pe.Kind)
			assert.Equal(t, tc.retryable, pe.Retryable)
			assert.Equal(t, tc.typ, pe.Type)
			assert.Equal(t, "Something went wrong", pe.Message)
			assert.Zero(t, pe.Status)
		})
	}
}

func TestUnparseableStreamIsProtocolError(t *testing.T) {
	cases := map[string]func(s *sse){
		"malformed JSON": func(s *sse) {
			s.messageStart(10)
			s.textStart(0)
			s.event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"unterminated`)
		},
		"delta for a block that never started": func(s *sse) {
			s.messageStart(10)
			s.textDelta(3, "where?")
		},
		"second message_start": func(s *sse) {
			s.messageStart(10)
			s.textStart(0)
			s.textDelta(0, "x")
			s.messageStart(10)
		},
	}
	for name, script := range cases {
		t.Run(name, func(t *testing.T) {
			p := streamingProvider(t, script)
			_, resp, err := collect(t, p, simpleRequest())
			assert.Nil(t, resp)
			pe := requireProviderError(t, err)
			assert.Equal(t, provider.ErrProtocol, pe.Kind)
			assert.False(t, pe.Retryable)
		})
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	cases := []struct {
		name   string
		header map[string]string
		want   time.Duration
	}{
		{"none", nil, 0},
		{"seconds", map[string]string{"retry-after": "3"}, 3 * time.Second},
		{"fractional seconds", map[string]string{"retry-after": "0.5"}, 500 * time.Millisecond},
		{"http date", map[string]string{"retry-after": now.Add(42 * time.Second).Format(http.TimeFormat)}, 42 * time.Second},
		{"date in the past", map[string]string{"retry-after": now.Add(-time.Minute).Format(http.TimeFormat)}, 0},
		{"milliseconds win", map[string]string{"retry-after": "3", "retry-after-ms": "250"}, 250 * time.Millisecond},
		{"negative", map[string]string{"retry-after": "-1"}, 0},
		{"garbage", map[string]string{"retry-after": "soon"}, 0},
		{"NaN", map[string]string{"retry-after": "NaN"}, 0},
		{"huge", map[string]string{"retry-after": "1e300"}, maxRetryAfter},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tc.header {
				h.Set(k, v)
			}
			assert.Equal(t, tc.want, retryAfter(h, now))
		})
	}
}

func TestErrorStringMentionsKindAndMessage(t *testing.T) {
	p, _ := newTestProvider(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`)
	})
	_, _, err := collect(t, p, simpleRequest())
	require.Error(t, err)
	assert.Equal(t, "auth (HTTP 401) authentication_error: invalid x-api-key", err.Error())
}

func TestSuccessWithoutEventStreamIsProtocolError(t *testing.T) {
	p, _ := newTestProvider(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("content-type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, "<html>Welcome to nginx!</html>")
	})
	_, resp, err := collect(t, p, simpleRequest())
	assert.Nil(t, resp)
	pe := requireProviderError(t, err)
	assert.Equal(t, provider.ErrProtocol, pe.Kind)
	assert.False(t, pe.Retryable)
	assert.Contains(t, pe.Message, "text/html")
}
