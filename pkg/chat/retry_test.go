package chat

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/chat/provider"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// retryingProvider reports a retry each time step receives, then ends as
// finish says: with an error, or with a reply.
func retryingProvider(step <-chan struct{}, retries int, finish error) provider.Provider {
	return provider.ProviderFunc(func(ctx context.Context, _ provider.Request, emit func(provider.Event)) (*provider.Response, error) {
		for i := 0; i < retries; i++ {
			<-step
			emit(provider.Retrying{Attempt: i + 2, MaxAttempts: retries + 1, Delay: 2 * time.Second, Err: errors.New("HTTP 500: overloaded")})
		}
		<-step
		if finish != nil {
			return nil, finish
		}
		emit(provider.TextDelta{Text: "finally"})
		return &provider.Response{Message: provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{provider.TextBlock("finally")}}, StopReason: provider.StopEndTurn}, nil
	})
}

func retryHarness(t *testing.T, p provider.Provider) (*App, *recordingScreen) {
	screen := newRecordingScreen()
	app, err := NewApp(context.Background(), config.Options{Profiles: testProfiles}, AppDeps{
		Screen: screen, Tools: tools.Default(), Env: &capabilities.Environment{Cwd: t.TempDir()},
		NewProvider: func(config.Profile) (provider.Provider, error) { return p, nil },
	})
	require.NoError(t, err)
	t.Cleanup(app.Close)
	return app, screen
}

// A persistent server error shows one retry line, updated in place, and
// ends with what is true: the attempts made, no retry lines left, and no
// claim that something streamed was kept.
func TestPersistentErrorShowsOneRetryLineAndAnHonestEnd(t *testing.T) {
	step := make(chan struct{})
	app, screen := retryHarness(t, retryingProvider(step, 4, errors.New("HTTP 500: overloaded")))
	app.Send("hi")
	step <- struct{}{}
	screen.waitForText(t, "attempt 2 of 5, next try in 2s")
	step <- struct{}{}
	text := screen.waitForText(t, "attempt 3 of 5")
	assert.NotContains(t, text, "attempt 2 of 5", "the retry line is updated in place")
	step <- struct{}{}
	step <- struct{}{}
	screen.waitForText(t, "attempt 5 of 5")
	step <- struct{}{}
	text = screen.waitForText(t, "the request failed after 5 attempts")
	assert.NotContains(t, text, "attempt 5 of 5", "no retry line is left")
	assert.NotContains(t, text, "What was streamed is kept", "nothing was streamed")
	assert.Contains(t, text, "Send a message to try again.")
	assert.Equal(t, 1, strings.Count(text, "HTTP 500"), text)
}

// Retries that end in a reply leave no trace of the retries.
func TestRetriesThatSucceedLeaveNoNotice(t *testing.T) {
	step := make(chan struct{})
	app, screen := retryHarness(t, retryingProvider(step, 2, nil))
	app.Send("hi")
	step <- struct{}{}
	screen.waitForText(t, "attempt 2 of 3")
	step <- struct{}{}
	step <- struct{}{}
	text := screen.waitForText(t, "finally")
	screen.waitForText(t, "ready")
	assert.NotContains(t, screen.text(), "attempt", text)
}
