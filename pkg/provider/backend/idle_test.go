package backend

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/provider"
)

// anthropicSSE is the start of a Messages API stream, up to a first text
// delta.
const (
	messageStart = `event: message_start
data: {"type":"message_start","message":{"id":"m","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}}

`
	textStart = `event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

`
	textDelta = `event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"partial"}}

`
	messageEnd = `event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":2}}

event: message_stop
data: {"type":"message_stop"}

`
)

// stallingServer answers request n (from 1) with script(n): the events to
// send, and whether to stall afterwards (hold the connection open, silent,
// until the client gives up) instead of ending the message.
func stallingServer(t *testing.T, script func(n int64) (events string, stall bool)) (*httptest.Server, *atomic.Int64) {
	var count atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		events, stall := script(count.Add(1))
		w.Header().Set("content-type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		fmt.Fprint(w, events)
		w.(http.Flusher).Flush()
		if stall {
			<-r.Context().Done()
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &count
}

// streamFrom runs one request through the provider the factory builds for
// a profile with a 200 ms idle timeout.
func streamFrom(t *testing.T, providerName, baseURL string) ([]provider.Event, *provider.Response, error) {
	t.Helper()
	f := Factory(func(string) string { return "key" }, provider.RetryPolicy{
		Sleep: func(context.Context, time.Duration) error { return nil },
	})
	p, err := f(config.Profile{Name: "p", Provider: providerName, Model: "m", BaseURL: baseURL, APIKeyEnvVar: "K", IdleTimeout: 0.2})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var events []provider.Event
	resp, err := p.Stream(ctx, provider.Request{Model: "m", MaxTokens: 10, Messages: []provider.Message{
		{Role: provider.RoleUser, Content: []provider.Block{provider.TextBlock("hi")}},
	}}, func(e provider.Event) { events = append(events, e) })
	return events, resp, err
}

// A stream that stalls before anything was shown is sent again once, at
// once; the second answer is used.
func TestStallBeforeAnyTextIsRetriedOnce(t *testing.T) {
	srv, count := stallingServer(t, func(n int64) (string, bool) {
		if n == 1 {
			return messageStart, true
		}
		return messageStart + textStart + textDelta + messageEnd, false
	})
	events, resp, err := streamFrom(t, "anthropic", srv.URL)
	require.NoError(t, err)
	assert.Equal(t, "partial", resp.Message.Content[0].Text)
	assert.EqualValues(t, 2, count.Load())
	require.NotEmpty(t, events)
	retry, ok := events[0].(provider.Retrying)
	require.True(t, ok, "first event: %#v", events[0])
	assert.Zero(t, retry.Delay)
	assert.True(t, provider.IsIdleTimeout(retry.Err), retry.Err)
}

// A second stall is not retried: the user sees the error.
func TestStallTwiceIsAnError(t *testing.T) {
	for _, c := range []struct{ provider, events string }{
		{"anthropic", messageStart},
		{"openai", `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant"}}]}` + "\n\n"},
		{"openai", ""}, // headers only
	} {
		t.Run(c.provider, func(t *testing.T) {
			srv, count := stallingServer(t, func(int64) (string, bool) { return c.events, true })
			base := srv.URL
			if c.provider == "openai" {
				base += "/v1/"
			}
			_, _, err := streamFrom(t, c.provider, base)
			require.Error(t, err)
			assert.True(t, provider.IsIdleTimeout(err), "%v", err)
			assert.True(t, provider.IsRetryable(err))
			assert.Contains(t, err.Error(), "the server sent nothing for 200ms")
			assert.EqualValues(t, 2, count.Load())
		})
	}
}

// A stall after text was shown ends the stream with the error; it is not
// sent again, which would show the text twice.
func TestStallAfterTextIsNotRetried(t *testing.T) {
	srv, count := stallingServer(t, func(int64) (string, bool) { return messageStart + textStart + textDelta, true })
	events, _, err := streamFrom(t, "anthropic", srv.URL)
	require.Error(t, err)
	assert.True(t, provider.IsIdleTimeout(err), "%v", err)
	assert.EqualValues(t, 1, count.Load())
	assert.Equal(t, []provider.Event{provider.TextDelta{Index: 0, Text: "partial"}}, events)
}
