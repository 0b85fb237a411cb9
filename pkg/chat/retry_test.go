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
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/provider"
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

// A persistent server error shows one retry line, updated in place,
// that counts retries (not attempts) and says which one is the last, and
// ends with what is true: the retries made, no retry lines left, and no
// claim that something streamed was kept.
func TestPersistentErrorShowsOneRetryLineAndAnHonestEnd(t *testing.T) {
	step := make(chan struct{})
	app, screen := retryHarness(t, retryingProvider(step, 3, errors.New("HTTP 500: overloaded")))
	app.Send("hi")
	step <- struct{}{}
	screen.waitForText(t, "HTTP 500: overloaded; retrying in 2s (retry 1 of 3)")
	step <- struct{}{}
	text := screen.waitForText(t, "retrying in 2s (retry 2 of 3)")
	assert.NotContains(t, text, "retry 1 of 3", "the retry line is updated in place")
	step <- struct{}{}
	text = screen.waitForText(t, "retrying in 2s (retry 3 of 3, the last)")
	assert.NotContains(t, text, "attempt", "retries are counted, not attempts")
	step <- struct{}{}
	text = screen.waitForText(t, "the request failed after 3 retries")
	assert.NotContains(t, text, "retry 3 of 3", "no retry line is left")
	assert.NotContains(t, text, "What was streamed is kept", "nothing was streamed")
	assert.Contains(t, text, "Send a message to try again.")
	assert.Equal(t, 1, strings.Count(text, "HTTP 500"), text)
}

// The retry line of a stalled stream, sent again at once, says so.
func TestRetryNoticeWording(t *testing.T) {
	err := errors.New("HTTP 500: overloaded")
	assert.Equal(t, "HTTP 500: overloaded; retrying in 13.4s (retry 2 of 3)",
		retryNotice(provider.Retrying{Attempt: 3, MaxAttempts: 4, Delay: 13_437 * time.Millisecond, Err: err}))
	assert.Equal(t, "HTTP 500: overloaded; retrying now (retry 1 of 1, the last)",
		retryNotice(provider.Retrying{Attempt: 2, MaxAttempts: 2, Err: err}))
}

// Retries that end in a reply leave no trace of the retries.
func TestRetriesThatSucceedLeaveNoNotice(t *testing.T) {
	step := make(chan struct{})
	app, screen := retryHarness(t, retryingProvider(step, 2, nil))
	app.Send("hi")
	step <- struct{}{}
	screen.waitForText(t, "retry 1 of 2")
	step <- struct{}{}
	step <- struct{}{}
	text := screen.waitForText(t, "finally")
	screen.waitForText(t, "ready")
	assert.NotContains(t, screen.text(), "retry", text)
}
