package chat

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/approval"
	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/chat/view"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// A question asked of the workspace (no thread: trusting a project's
// .mcp.json) is drawn at the top of every thread, including one made
// after it was asked; a key in any of them answers it. The header's MCP
// line follows what the MCP callback says when the thread is refreshed.
func TestWorkspaceApprovalAndMCPLine(t *testing.T) {
	screen := newRecordingScreen()
	broker := approval.NewBroker(nil)
	var mu sync.Mutex
	line := view.NewMCPLine([]string{"github"}, nil)
	app, err := NewApp(context.Background(), config.Options{Profiles: testProfiles}, AppDeps{
		Screen: screen, Tools: tools.Default(), Env: &capabilities.Environment{Name: "test", Cwd: t.TempDir()},
		NewProvider: func(config.Profile) (provider.Provider, error) { return providertest.New(), nil },
		Broker:      broker,
		MCP: func() view.MCPLine {
			mu.Lock()
			defer mu.Unlock()
			return line
		},
	})
	require.NoError(t, err)
	t.Cleanup(app.Close)
	screen.waitForText(t, "mcp: github starting…")

	answer := make(chan approval.Decision, 1)
	go func() {
		d, _ := broker.Ask(context.Background(), approval.Request{Kind: "mcp_project", Subject: "/ws/.mcp.json\nt: srv", Reason: "start them?", NoAlways: true})
		answer <- d
	}()
	text := screen.waitForText(t, "> YES")
	assert.Contains(t, text, "┃ t: srv")
	assert.NotContains(t, text, "ALWAYS")
	first := app.ActiveThreadID()

	app.NewThread() // made after the question: draws it too
	screen.waitFor(t, "the new thread", func(string) bool { return app.ActiveThreadID() != first })
	screen.waitForText(t, "> YES")
	app.Key(view.KeyActivate, screen.lineOf(t, "> YES"))
	assert.Equal(t, approval.Allow, <-answer)
	screen.waitFor(t, "the question gone", func(text string) bool { return !strings.Contains(text, "> YES") })

	mu.Lock()
	line = view.NewMCPLine(nil, []string{"github"})
	mu.Unlock()
	app.Refresh()
	screen.waitForText(t, "mcp: github failed (see :Magenta mcp)")
	mu.Lock()
	line = view.MCPLine{}
	mu.Unlock()
	app.Refresh()
	screen.waitFor(t, "no MCP line once ready", func(text string) bool { return !strings.Contains(text, "mcp:") })
}
