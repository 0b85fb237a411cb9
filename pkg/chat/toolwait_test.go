package chat

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// fakeServers are tool servers whose start the test drives: WaitStarted
// returns when the test releases it (or at the thread's deadline).
type fakeServers struct {
	mu       sync.Mutex
	starting []string
	waits    int
	release  chan struct{}
}

func (f *fakeServers) Starting() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.starting)
}

func (f *fakeServers) WaitStarted(ctx context.Context, names []string) {
	f.mu.Lock()
	f.waits++
	f.mu.Unlock()
	select {
	case <-f.release:
	case <-ctx.Done():
	}
}

func (f *fakeServers) set(starting ...string) {
	f.mu.Lock()
	f.starting = starting
	f.mu.Unlock()
}

func serversHarness(t *testing.T, servers *fakeServers) *harness {
	t.Helper()
	screen := newRecordingScreen()
	fake := providertest.New()
	app, err := NewApp(context.Background(), config.Options{Profiles: testProfiles}, AppDeps{
		Screen: screen, Tools: tools.Default(), Env: &capabilities.Environment{Name: "test", Cwd: t.TempDir()},
		NewProvider: func(config.Profile) (provider.Provider, error) { return fake, nil },
		ToolServers: servers,
	})
	require.NoError(t, err)
	t.Cleanup(app.Close)
	screen.waitForText(t, "# New thread")
	return &harness{app: app, screen: screen, fake: fake}
}

// A thread's first request waits for the MCP servers still starting,
// saying which in the status line, and goes once they are ready; later
// requests do not wait.
func TestFirstRequestWaitsForStartingServers(t *testing.T) {
	servers := &fakeServers{starting: []string{"docs", "github"}, release: make(chan struct{})}
	h := serversHarness(t, servers)
	h.app.Send("hi")
	h.screen.waitForText(t, "waiting for MCP servers docs, github to start (up to 2s) · :Magenta abort stops")
	servers.set()
	close(servers.release)
	call := h.fake.Next(t)
	call.Reply("hello")
	text := h.screen.waitForText(t, "ready")
	assert.NotContains(t, text, "left out")

	servers.set("docs") // restarting, say: not waited for again
	h.app.Send("again")
	h.fake.Next(t).Reply("ok")
	h.screen.waitForText(t, "ok")
	servers.mu.Lock()
	defer servers.mu.Unlock()
	assert.Equal(t, 1, servers.waits)
}

// A server not ready when the wait ends is left out of that request,
// and the chat says so; a server that became ready meanwhile is not
// named.
func TestServerNotReadyInTimeIsLeftOutAndSaidSo(t *testing.T) {
	servers := &fakeServers{starting: []string{"docs", "slow"}, release: make(chan struct{})}
	h := serversHarness(t, servers)
	h.app.Send("hi")
	h.screen.waitForText(t, "waiting for MCP servers docs, slow to start")
	servers.set("slow")
	close(servers.release) // as the deadline would
	call := h.fake.Next(t)
	text := h.screen.waitForText(t, "MCP server slow is still starting: its tools are left out of this request and join a later one once it is ready")
	assert.False(t, strings.Contains(text, "docs is still"), text)
	call.Reply("hello")
	h.screen.waitForText(t, "ready")
}

// Abort during the wait ends the turn; no request is sent.
func TestAbortWhileWaitingForServers(t *testing.T) {
	servers := &fakeServers{starting: []string{"slow"}, release: make(chan struct{})}
	h := serversHarness(t, servers)
	h.app.Send("hi")
	h.screen.waitForText(t, "waiting for MCP server slow to start")
	h.app.Abort()
	h.screen.waitForText(t, "ℹ aborted")
	h.screen.waitForText(t, "ready")
	servers.set()
	h.app.Send("again")
	call := h.fake.Next(t)
	assert.True(t, strings.HasSuffix(call.LastUserText(), "again"), "the aborted message goes with the next: %q", call.LastUserText())
	call.Reply("ok")
}
