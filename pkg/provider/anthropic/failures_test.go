package anthropic

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/provider"
)

func TestStreamEndingBeforeMessageStop(t *testing.T) {
	p := streamingProvider(t, func(s *sse) {
		s.messageStart(10)
		s.textStart(0)
		s.textDelta(0, "Half an ans")
		// The handler returns: the response ends cleanly, without message_stop.
	})
	events, resp, err := collect(t, p, simpleRequest())
	assert.Nil(t, resp)
	assert.Equal(t, []provider.Event{provider.TextDelta{Index: 0, Text: "Half an ans"}}, events)
	pe := requireProviderError(t, err)
	assert.Equal(t, provider.ErrConnection, pe.Kind)
	assert.True(t, pe.Retryable)
	assert.Contains(t, pe.Message, "ended early")
}

func TestConnectionDroppedMidStream(t *testing.T) {
	p, _ := newTestProvider(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		conn, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			panic(err)
		}
		defer conn.Close()
		event := "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n"
		_, _ = buf.WriteString("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n")
		// One complete chunk, then the start of a chunk that never ends.
		_, _ = buf.WriteString(chunk(event) + "400\r\nevent: content_block_st")
		_ = buf.Flush()
	})
	_, resp, err := collect(t, p, simpleRequest())
	assert.Nil(t, resp)
	pe := requireProviderError(t, err)
	assert.Equal(t, provider.ErrConnection, pe.Kind)
	assert.True(t, pe.Retryable)
	var te *transportError
	assert.Truef(t, errors.As(pe.Err, &te), "want a transport failure, got %v", err)
	assert.Contains(t, pe.Message, "ended early")
}

// chunk encodes s as one chunk of a chunked HTTP body.
func chunk(s string) string { return fmt.Sprintf("%x\r\n%s\r\n", len(s), s) }

func TestDialFailureIsRetryableConnectionError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())

	p, err := New(Options{BaseURL: "http://" + addr, APIKey: testKey})
	require.NoError(t, err)
	_, resp, err := collect(t, p, simpleRequest())
	assert.Nil(t, resp)
	pe := requireProviderError(t, err)
	assert.Equal(t, provider.ErrConnection, pe.Kind)
	assert.True(t, pe.Retryable)
	t.Log(err)
}

// blockingProvider returns a provider whose server calls before, then
// waits until the client goes away or the test ends, and a channel that
// is closed once the server is waiting.
func blockingProvider(t *testing.T, before func(w http.ResponseWriter)) (provider.Provider, <-chan struct{}) {
	t.Helper()
	waiting := make(chan struct{})
	release := make(chan struct{})
	p, _ := newTestProvider(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		before(w)
		close(waiting)
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	t.Cleanup(func() { close(release) }) // runs before the server closes
	return p, waiting
}

// streamAsync runs Stream on another goroutine; the result arrives on the
// returned channel.
func streamAsync(ctx context.Context, p provider.Provider, emit func(provider.Event)) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := p.Stream(ctx, simpleRequest(), emit)
		done <- err
	}()
	return done
}

func requireCancelled(t *testing.T, done <-chan error) {
	t.Helper()
	select {
	case err := <-done:
		require.Error(t, err)
		assert.ErrorIs(t, err, context.Canceled)
		assert.False(t, provider.IsRetryable(err))
		t.Log(err)
	case <-time.After(5 * time.Second):
		t.Fatal("Stream did not return after its context was cancelled")
	}
}

func TestCancelWhileServerWaitsBeforeHeaders(t *testing.T) {
	p, waiting := blockingProvider(t, func(http.ResponseWriter) {})
	ctx, cancel := context.WithCancel(testCtx(t))
	done := streamAsync(ctx, p, func(provider.Event) {})
	<-waiting
	cancel()
	requireCancelled(t, done)
}

func TestCancelMidStream(t *testing.T) {
	p, _ := blockingProvider(t, func(w http.ResponseWriter) {
		s := startSSE(w)
		s.messageStart(10)
		s.textStart(0)
		s.textDelta(0, "first words")
	})
	ctx, cancel := context.WithCancel(testCtx(t))
	done := streamAsync(ctx, p, func(e provider.Event) {
		if _, ok := e.(provider.TextDelta); ok {
			cancel() // the user pressed stop after seeing text
		}
	})
	requireCancelled(t, done)
}

func TestAlreadyCancelledContext(t *testing.T) {
	p := streamingProvider(t, func(s *sse) { s.textMessage("end_turn", "never") })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := p.Stream(ctx, simpleRequest(), func(provider.Event) {})
	assert.True(t, errors.Is(err, context.Canceled))
}
