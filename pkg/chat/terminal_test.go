package chat

import (
	"context"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/memshell"
	"github.com/magenta-nvim/magenta/pkg/chat/view"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// recordingTerminals records what the thread asks of the editor.
type recordingTerminals struct {
	mu     sync.Mutex
	opened []TerminalRequest
	ended  map[string]string
}

func (r *recordingTerminals) Open(req TerminalRequest) {
	r.mu.Lock()
	r.opened = append(r.opened, req)
	r.mu.Unlock()
}

func (r *recordingTerminals) Ended(key, exit string) {
	r.mu.Lock()
	r.ended[key] = exit
	r.mu.Unlock()
}

func (r *recordingTerminals) last() (TerminalRequest, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.opened) == 0 {
		return TerminalRequest{}, 0
	}
	return r.opened[len(r.opened)-1], len(r.opened)
}

func (r *recordingTerminals) endedWith(key string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ended[key]
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	require.Eventually(t, cond, 30*time.Second, 5*time.Millisecond, "timed out waiting for %s", what)
}

// startAskApp starts an app whose shell plays term as the interactive
// command ./ask.sh; terms may be nil.
func startAskApp(t *testing.T, term *memshell.Terminal, terms Terminals) (*App, *recordingScreen, *providertest.Fake) {
	t.Helper()
	sh := memshell.New(memshell.Script{Command: "./ask.sh", Terminal: term})
	screen := newRecordingScreen()
	fake := providertest.New()
	app, err := NewApp(context.Background(), config.Options{Profiles: testProfiles}, AppDeps{
		Screen: screen, Tools: tools.Default(), Env: &capabilities.Environment{Name: "test", Cwd: t.TempDir(), Shell: sh},
		NewProvider: func(config.Profile) (provider.Provider, error) { return fake, nil },
		Terminals:   terms,
	})
	require.NoError(t, err)
	t.Cleanup(app.Close)
	screen.waitForText(t, "# New thread")
	return app, screen, fake
}

func TestInteractiveCommandInTheChat(t *testing.T) {
	term := memshell.NewTerminal()
	terms := &recordingTerminals{ended: map[string]string{}}
	app, screen, fake := startAskApp(t, term, terms)

	app.Send("ask me")
	call := fake.Next(t)
	call.ToolUse("tu_1", "bash_command", map[string]any{"command": "./ask.sh", "interactive": true, "description": "ask a name"})
	call.Stop(provider.StopToolUse)

	term.SetScreen("hello", "Enter your name: ")
	screen.waitForText(t, "┆ Enter your name:")
	term.SetWaiting(true)
	screen.waitForText(t, view.TerminalWaitingHint("t"))

	app.Key(view.KeyTerminal, screen.lineOf(t, "Enter your name"))
	waitUntil(t, "the terminal to be opened", func() bool { _, n := terms.last(); return n == 1 })
	req, _ := terms.last()
	assert.Same(t, term, req.Term)
	assert.Equal(t, "ask a name", req.Title)
	assert.Equal(t, "", req.Exit, "running")
	req.Opened(true)
	screen.waitForText(t, view.TerminalOpenNote)
	assert.NotContains(t, screen.text(), view.TerminalWaitingHint("t"), "the open window replaces the hint")

	term.Exit(0)
	next := fake.Next(t)
	res, isErr := lastToolResult(t, next)
	assert.False(t, isErr)
	assert.Contains(t, res, "exit code 0")
	waitUntil(t, "the window to be told the end", func() bool { return terms.endedWith(req.Key) == "exited 0" })
	next.Reply("done")
	screen.waitForText(t, "✓ bash_command")

	req.Opened(false)
	screen.waitForText(t, view.TerminalEndedNote("t"))
	// t on the finished command opens its replay, with how it ended.
	app.Key(view.KeyTerminal, screen.lineOf(t, "✓ bash_command"))
	waitUntil(t, "the replay to be opened", func() bool { _, n := terms.last(); return n == 2 })
	again, _ := terms.last()
	assert.Equal(t, "exited 0", again.Exit)
}

func lastToolResult(t *testing.T, c *providertest.Call) (string, bool) {
	t.Helper()
	msgs := c.Request.Messages
	for _, b := range msgs[len(msgs)-1].Content {
		if b.Kind == provider.BlockToolResult {
			return b.Result[0].Text, b.IsError
		}
	}
	t.Fatal("no tool result")
	return "", false
}

// The timer of an interactive command shows the limit the user's typing
// moved (see capabilities.TerminalDeadline).
func TestTypingMovesTheTimerOfAnInteractiveCommand(t *testing.T) {
	term := memshell.NewTerminal()
	app, screen, fake := startAskApp(t, term, nil)

	app.Send("ask me")
	call := fake.Next(t)
	call.ToolUse("tu_1", "bash_command", map[string]any{"command": "./ask.sh", "interactive": true, "timeout": 20000})
	call.Stop(provider.StopToolUse)
	screen.waitForText(t, " of 20s")
	_, err := term.Write([]byte("x"))
	require.NoError(t, err)
	screen.waitFor(t, "the timer to show the moved limit", func(s string) bool {
		return regexp.MustCompile(` of 1m[0-9]+s`).MatchString(s)
	})
	term.Exit(0)
	fake.Next(t).Reply("done")
	screen.waitForText(t, "✓ bash_command")
}
