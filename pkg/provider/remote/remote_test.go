package remote_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/proctest"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/backend"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
	"github.com/magenta-nvim/magenta/pkg/provider/remote"
)

const wait = 10 * time.Second

func newClient(t *testing.T) *remote.Client {
	c := remote.NewClient(providerBin, 0)
	t.Cleanup(c.Close)
	return c
}

func request(text string) provider.Request {
	return provider.Request{Model: "m", MaxTokens: 100, System: "be brief",
		Messages: []provider.Message{{Role: provider.RoleUser, Content: []provider.Block{provider.TextBlock(text)}}},
		Tools:    []provider.ToolSpec{{Name: "get_file", Description: "reads", InputSchema: []byte(`{"type":"object"}`)}}}
}

// run streams req through p and returns its events and outcome.
func run(ctx context.Context, p provider.Provider, req provider.Request) ([]provider.Event, *provider.Response, error) {
	var events []provider.Event
	resp, err := p.Stream(ctx, req, func(e provider.Event) { events = append(events, e) })
	return events, resp, err
}

// TestStreamMatchesInProcess: a reply with thinking, text and a tool call
// from the Messages API over real HTTP+SSE comes out of the provider
// process as the same events and the same response as out of the adapter
// run in this process, and the request on the wire is the same.
func TestStreamMatchesInProcess(t *testing.T) {
	reply := providertest.Reply{StopReason: "tool_use", Blocks: []providertest.ReplyBlock{
		{Type: "thinking", Thinking: "Let me look at the file first.", Signature: "sig", Chunks: 3},
		{Type: "text", Text: "I'll read it — ünïcode too."},
		{Type: "tool_use", ID: "toolu_1", Name: "get_file", Input: `{"filePath":"a.go"}`},
	}}
	srv := providertest.NewAnthropicServer(t, reply, reply)
	spec := provider.Spec{Provider: "anthropic", BaseURL: srv.URL, APIKey: "k", IdleTimeout: wait}
	req := request("read a.go")
	req.Reasoning = provider.Reasoning{BudgetTokens: 1024}

	local, err := backend.Adapter(spec)
	require.NoError(t, err)
	wantEvents, wantResp, err := run(context.Background(), local, req)
	require.NoError(t, err)

	remoteP, err := newClient(t).Adapter(spec)
	require.NoError(t, err)
	events, resp, err := run(context.Background(), remoteP, req)
	require.NoError(t, err)

	assert.Equal(t, wantEvents, events)
	assert.Equal(t, wantResp, resp)
	bodies := srv.Bodies()
	require.Len(t, bodies, 2)
	assert.JSONEq(t, string(bodies[0]), string(bodies[1]), "the process sends what the adapter here sends")
}

// TestErrorsKeepTheirMeaning: each way a request fails reaches the host
// with the same kind, status, retry advice, wait and text as from the
// adapter in this process — what WithRetry and the chat decide on.
func TestErrorsKeepTheirMeaning(t *testing.T) {
	status := func(code int, header, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			if header != "" {
				k, v, _ := strings.Cut(header, ": ")
				w.Header().Set(k, v)
			}
			w.Header().Set("content-type", "application/json")
			w.WriteHeader(code)
			fmt.Fprint(w, body)
		}
	}
	stall := func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("content-type", "text/event-stream")
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}
	html := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("content-type", "text/html")
		fmt.Fprint(w, "<html>login</html>")
	}
	cases := []struct {
		name    string
		handler http.HandlerFunc
		kind    provider.ErrorKind
	}{
		{"rate-limit", status(429, "retry-after: 7", `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`), provider.ErrRateLimit},
		{"auth", status(401, "", `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`), provider.ErrAuth},
		{"overloaded", status(529, "", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`), provider.ErrOverloaded},
		{"too-long", status(400, "", `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 250000 tokens > 200000 maximum"}}`), provider.ErrContextTooLong},
		{"server", status(500, "", `{"type":"error","error":{"type":"api_error","message":"boom"}}`), provider.ErrServer},
		{"not-a-stream", html, provider.ErrProtocol},
		{"stall", stall, provider.ErrConnection},
	}
	client := newClient(t)
	for _, kind := range []string{"anthropic", "openai"} {
		for _, c := range cases {
			t.Run(kind+"/"+c.name, func(t *testing.T) {
				srv := httptest.NewServer(c.handler)
				defer srv.Close()
				base := srv.URL
				if kind == "openai" {
					base += "/v1"
				}
				spec := provider.Spec{Provider: kind, BaseURL: base, APIKey: "k", IdleTimeout: 300 * time.Millisecond}
				local, err := backend.Adapter(spec)
				require.NoError(t, err)
				_, _, want := run(context.Background(), local, request("hi"))
				require.Error(t, want)
				p, err := client.Adapter(spec)
				require.NoError(t, err)
				_, _, got := run(context.Background(), p, request("hi"))
				require.Error(t, got)

				assert.Equal(t, want.Error(), got.Error())
				var wpe, gpe *provider.Error
				require.True(t, errors.As(want, &wpe), "%v", want)
				require.True(t, errors.As(got, &gpe), "%v", got)
				if kind == "anthropic" || c.kind != provider.ErrContextTooLong {
					assert.Equal(t, c.kind, gpe.Kind)
				}
				assert.Equal(t, wpe.Kind, gpe.Kind)
				assert.Equal(t, wpe.Status, gpe.Status)
				assert.Equal(t, wpe.Type, gpe.Type)
				assert.Equal(t, wpe.Retryable, gpe.Retryable)
				assert.Equal(t, wpe.RetryAfter, gpe.RetryAfter)
				assert.Equal(t, provider.IsIdleTimeout(want), provider.IsIdleTimeout(got))
				assert.Equal(t, provider.IsContextTooLong(want), provider.IsContextTooLong(got))
				assert.Equal(t, c.name == "stall", provider.IsIdleTimeout(got))
			})
		}
	}
}

// heldServer answers each request with message_start and one text delta,
// then holds the stream open until the client goes away, which it
// reports on gone.
func heldServer(t *testing.T) (url string, started, gone chan struct{}) {
	started, gone = make(chan struct{}, 16), make(chan struct{}, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("content-type", "text/event-stream")
		fmt.Fprint(w, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n"+
			"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"+
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"partial\"}}\n\n")
		w.(http.Flusher).Flush()
		started <- struct{}{}
		<-r.Context().Done()
		gone <- struct{}{}
	}))
	t.Cleanup(srv.Close)
	return srv.URL, started, gone
}

func within(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(wait):
		t.Fatalf("no %s within %s", what, wait)
	}
}

// TestCancelEndsTheRequest: cancelling a stream's context returns at once
// with the context's error, and the provider process drops the HTTP
// request (the server sees its client go).
func TestCancelEndsTheRequest(t *testing.T) {
	url, started, gone := heldServer(t)
	p, err := newClient(t).Adapter(provider.Spec{Provider: "anthropic", BaseURL: url, APIKey: "k", IdleTimeout: time.Minute})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	gotText := make(chan struct{}, 1)
	go func() {
		_, err := p.Stream(ctx, request("hi"), func(e provider.Event) {
			if _, ok := e.(provider.TextDelta); ok {
				gotText <- struct{}{}
			}
		})
		done <- err
	}()
	within(t, started, "request")
	within(t, gotText, "text")
	cancel()
	select {
	case err := <-done:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(wait):
		t.Fatal("Stream did not return after cancel")
	}
	within(t, gone, "dropped request")
}

// TestProcessDeathFailsStreamsThenRestarts: when the provider process is
// killed mid-stream, every open stream fails with a retryable connection
// error naming it, and the next stream starts a new process.
func TestProcessDeathFailsStreamsThenRestarts(t *testing.T) {
	url, started, _ := heldServer(t)
	client := newClient(t)
	p, err := client.Adapter(provider.Spec{Provider: "anthropic", BaseURL: url, APIKey: "k", IdleTimeout: time.Minute})
	require.NoError(t, err)
	errs := make(chan error, 2)
	for i := 0; i < 2; i++ {
		go func() {
			_, err := p.Stream(context.Background(), request("hi"), func(provider.Event) {})
			errs <- err
		}()
	}
	within(t, started, "first request")
	within(t, started, "second request")
	pid := client.PID()
	require.NotZero(t, pid)
	require.NoError(t, syscall.Kill(pid, syscall.SIGKILL))
	for i := 0; i < 2; i++ {
		select {
		case err := <-errs:
			require.True(t, provider.IsRetryable(err), "%v", err)
			assert.Contains(t, err.Error(), "the provider process ended")
			assert.Contains(t, err.Error(), "killed")
		case <-time.After(wait):
			t.Fatal("a stream did not fail after its process died")
		}
	}

	srv := providertest.NewAnthropicServer(t, providertest.Reply{StopReason: "end_turn", Blocks: []providertest.ReplyBlock{{Type: "text", Text: "back"}}})
	p2, err := client.Adapter(provider.Spec{Provider: "anthropic", BaseURL: srv.URL, APIKey: "k", IdleTimeout: wait})
	require.NoError(t, err)
	_, resp, err := run(context.Background(), p2, request("again"))
	require.NoError(t, err)
	assert.Equal(t, "back", resp.Message.Content[0].Text)
	assert.NotEqual(t, pid, client.PID())
}

// TestConcurrentStreamsShareOneProcess: streams of several threads at
// once each get their own reply, from one process.
func TestConcurrentStreamsShareOneProcess(t *testing.T) {
	const n = 8
	var replies []providertest.Reply
	for i := 0; i < n; i++ {
		replies = append(replies, providertest.Reply{StopReason: "end_turn", Blocks: []providertest.ReplyBlock{{Type: "text", Text: "same"}}})
	}
	srv := providertest.NewAnthropicServer(t, replies...)
	client := newClient(t)
	p, err := client.Adapter(provider.Spec{Provider: "anthropic", BaseURL: srv.URL, APIKey: "k", IdleTimeout: wait})
	require.NoError(t, err)
	var wg sync.WaitGroup
	pids := make(chan int, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			events, resp, err := run(context.Background(), p, request("hi"))
			if assert.NoError(t, err) {
				assert.Equal(t, "same", resp.Message.Content[0].Text)
				assert.Equal(t, []provider.Event{provider.TextDelta{Text: "same"}}, events)
			}
			pids <- client.PID()
		}()
	}
	wg.Wait()
	close(pids)
	first := <-pids
	for pid := range pids {
		assert.Equal(t, first, pid)
	}
	assert.Len(t, srv.Bodies(), n)
}

// TestIdleProcessIsLetGo: after its last stream the process is let go
// when the idle time has passed, and a later stream starts it again.
func TestIdleProcessIsLetGo(t *testing.T) {
	reply := providertest.Reply{StopReason: "end_turn", Blocks: []providertest.ReplyBlock{{Type: "text", Text: "ok"}}}
	srv := providertest.NewAnthropicServer(t, reply, reply)
	client := remote.NewClient(providerBin, 100*time.Millisecond)
	t.Cleanup(client.Close)
	p, err := client.Adapter(provider.Spec{Provider: "anthropic", BaseURL: srv.URL, APIKey: "k", IdleTimeout: wait})
	require.NoError(t, err)
	_, _, err = run(context.Background(), p, request("hi"))
	require.NoError(t, err)
	pid := client.PID()
	require.NotZero(t, pid)
	require.Eventually(t, func() bool { return client.PID() == 0 && !proctest.Alive(pid) }, wait, 10*time.Millisecond)
	_, _, err = run(context.Background(), p, request("again"))
	require.NoError(t, err)
}

// TestCloseEndsTheProcess: the host's shutdown ends the process.
func TestCloseEndsTheProcess(t *testing.T) {
	srv := providertest.NewAnthropicServer(t, providertest.Reply{StopReason: "end_turn", Blocks: []providertest.ReplyBlock{{Type: "text", Text: "ok"}}})
	client := remote.NewClient(providerBin, 0)
	p, err := client.Adapter(provider.Spec{Provider: "anthropic", BaseURL: srv.URL, APIKey: "k", IdleTimeout: wait})
	require.NoError(t, err)
	_, _, err = run(context.Background(), p, request("hi"))
	require.NoError(t, err)
	pid := client.PID()
	client.Close()
	require.Eventually(t, func() bool { return !proctest.Alive(pid) }, wait, 10*time.Millisecond)
	_, _, err = run(context.Background(), p, request("after"))
	assert.ErrorContains(t, err, "shutting down")
}

// TestBadExecutablesSayWhatToDo: a missing executable, one that dies at
// start and one from another version fail with what to do.
func TestBadExecutablesSayWhatToDo(t *testing.T) {
	spec := provider.Spec{Provider: "anthropic", APIKey: "k"}
	_, err := remote.NewClient(filepath.Join(t.TempDir(), "magenta-provider"), 0).Adapter(spec)
	assert.ErrorContains(t, err, "run `make` in the plugin's directory, or `:Lazy build magenta`")

	script := func(body string) string {
		path := filepath.Join(t.TempDir(), "magenta-provider")
		require.NoError(t, os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755))
		return path
	}
	for _, c := range []struct{ body, want string }{
		{`echo "cannot load: oops" >&2; exit 3`, "cannot load: oops"},
		{`echo '{"hello":{"protocol":999,"pid":1}}'; cat >/dev/null`, "protocol 999"},
		{`echo 'not json'; cat >/dev/null`, "ended before greeting"},
	} {
		client := remote.NewClient(script(c.body), 0)
		p, err := client.Adapter(spec)
		require.NoError(t, err)
		_, _, err = run(context.Background(), p, request("hi"))
		assert.ErrorContains(t, err, c.want)
		assert.False(t, provider.IsRetryable(err), "%v", err)
		client.Close()
	}
}
