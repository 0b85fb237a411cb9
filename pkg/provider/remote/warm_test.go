package remote_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/proctest"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
	"github.com/magenta-nvim/magenta/pkg/provider/remote"
)

// TestWarmStartsTheProcessAhead: Warm (the sidebar opened) starts the
// process without a stream; the first stream uses that process, and a
// second Warm starts no other.
func TestWarmStartsTheProcessAhead(t *testing.T) {
	srv := providertest.NewAnthropicServer(t, providertest.Reply{StopReason: "end_turn", Blocks: []providertest.ReplyBlock{{Type: "text", Text: "ok"}}})
	client := newClient(t)
	assert.Zero(t, client.PID(), "nothing runs before")
	client.Warm()
	require.Eventually(t, func() bool { return client.PID() != 0 }, wait, 5*time.Millisecond)
	pid := client.PID()
	client.Warm()
	p, err := client.Adapter(provider.Spec{Provider: "anthropic", BaseURL: srv.URL, APIKey: "k", IdleTimeout: wait})
	require.NoError(t, err)
	_, resp, err := run(context.Background(), p, request("hi"))
	require.NoError(t, err)
	assert.Equal(t, "ok", resp.Message.Content[0].Text)
	assert.Equal(t, pid, client.PID(), "the warm process served the stream")
}

// TestWarmProcessWithoutStreamsIsLetGo: a process warmed for a request
// that never came is let go after the idle time.
func TestWarmProcessWithoutStreamsIsLetGo(t *testing.T) {
	client := remote.NewClient(providerBin, 100*time.Millisecond)
	t.Cleanup(client.Close)
	client.Warm()
	require.Eventually(t, func() bool { return client.PID() != 0 }, wait, 5*time.Millisecond)
	pid := client.PID()
	require.Eventually(t, func() bool { return client.PID() == 0 && !proctest.Alive(pid) }, wait, 10*time.Millisecond)
}
