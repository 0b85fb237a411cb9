package chat

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// startGateShell is a Shell whose command starts only when the test
// releases it (as after an approval), then runs until done is closed.
type startGateShell struct{ release, done chan struct{} }

func (s startGateShell) Execute(ctx context.Context, _ string, opts capabilities.ExecOptions) (*capabilities.ExecResult, error) {
	select {
	case <-s.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if opts.OnStart != nil {
		opts.OnStart(2 * time.Minute)
	}
	select {
	case <-s.done:
	case <-ctx.Done():
	}
	return &capabilities.ExecResult{}, nil
}

// The timer of a command counts from its start, not from the tool call:
// time spent waiting for the user's approval is neither shown as running
// nor taken from its limit (issue 24 item 7).
func TestCommandTimerCountsFromItsStart(t *testing.T) {
	sh := startGateShell{release: make(chan struct{}), done: make(chan struct{})}
	screen := newRecordingScreen()
	fake := providertest.New()
	app, err := NewApp(context.Background(), config.Options{Profiles: testProfiles}, AppDeps{
		Screen: screen, Tools: tools.Default(), Env: &capabilities.Environment{Name: "test", Cwd: t.TempDir(), Shell: sh},
		NewProvider: func(config.Profile) (provider.Provider, error) { return fake, nil },
	})
	require.NoError(t, err)
	t.Cleanup(app.Close)
	screen.waitForText(t, "# New thread")

	app.Send("run it")
	call := fake.Next(t)
	call.ToolUse("tu_1", "bash_command", map[string]any{"command": "make", "description": "build"})
	call.Stop(provider.StopToolUse)
	text := screen.waitForText(t, "running 2s") // waiting: no limit shown yet
	assert.NotContains(t, text, " of 2m0s")
	close(sh.release)
	text = screen.waitForText(t, " of 2m0s")
	m := regexp.MustCompile(`running (\d+)s of 2m0s`).FindStringSubmatch(text)
	require.NotNil(t, m, text)
	assert.Contains(t, []string{"0", "1"}, m[1], "counted from the start, not from the call 2 s earlier")
	close(sh.done)
	fake.Next(t).Reply("done")
	screen.waitForText(t, "✓ bash_command")
}
