package chat

import (
	"context"
	"strings"
	"testing"
	"time"

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

func newApprovalApp(t *testing.T, opts config.Options) (*App, *recordingScreen, *approval.Broker) {
	t.Helper()
	screen := newRecordingScreen()
	broker := approval.NewBroker(nil)
	opts.Profiles = testProfiles
	app, err := NewApp(context.Background(), opts, AppDeps{
		Screen: screen, Tools: tools.Default(), Env: &capabilities.Environment{Name: "test", Cwd: t.TempDir()},
		NewProvider: func(config.Profile) (provider.Provider, error) { return providertest.New(), nil },
		Broker:      broker,
	})
	require.NoError(t, err)
	t.Cleanup(app.Close)
	screen.waitForText(t, "# New thread")
	return app, screen, broker
}

// ask asks req in the background and returns where its answer arrives.
func ask(broker *approval.Broker, req approval.Request) <-chan approval.Decision {
	answer := make(chan approval.Decision, 1)
	go func() {
		d, _ := broker.Ask(context.Background(), req)
		answer <- d
	}()
	return answer
}

// waitNote waits for a notification containing sub.
func (s *recordingScreen) waitNote(t *testing.T, sub string) string {
	t.Helper()
	var found string
	s.waitFor(t, "a notification with "+sub, func(string) bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, n := range s.notes {
			if strings.Contains(n, sub) {
				found = n
				return true
			}
		}
		return false
	})
	return found
}

func assertUnanswered(t *testing.T, answer <-chan approval.Decision) {
	t.Helper()
	select {
	case d := <-answer:
		t.Fatalf("the request was answered %v", d)
	case <-time.After(50 * time.Millisecond):
	}
}

// A key pressed where no approval is drawn answers nothing — not the
// request of another thread, not one of this thread the cursor is not
// on — and says where the cursor must go.
func TestApprovalKeyAwayFromApprovalAnswersNothing(t *testing.T) {
	app, screen, broker := newApprovalApp(t, config.Options{})
	threadA := app.ActiveThreadID()
	app.NewThread()
	screen.waitFor(t, "thread B", func(string) bool { return app.ActiveThreadID() != threadA })

	answer := ask(broker, approval.Request{ThreadID: threadA, ToolUseID: "tu", Kind: "bash", Subject: "git push --force", Reason: "runs `git`"})
	require.Eventually(t, func() bool { return len(broker.Pending(threadA)) == 1 }, 5*time.Second, time.Millisecond)

	for _, key := range []view.Key{view.KeyApprove, view.KeyAlways, view.KeyDeny} {
		app.Key(key, 0)
	}
	note := screen.waitNote(t, "no approval waits here")
	assert.Contains(t, note, "1 approval waits in another thread")
	assertUnanswered(t, answer)
	assert.Len(t, broker.Pending(threadA), 1, "thread B's keys never answer thread A's request")

	// In thread A, away from any approval: nothing either.
	app.SelectThread(threadA)
	screen.waitFor(t, "thread A", func(string) bool { return app.ActiveThreadID() == threadA })
	app.Key(view.KeyApprove, 0)
	screen.waitNote(t, "the cursor is on no approval")
	assertUnanswered(t, answer)
	assert.Len(t, broker.Pending(threadA), 1)
}

// ALWAYS on a request that offers only YES / NO answers nothing and says
// so; the block names the keys that answer it, as configured.
func TestAlwaysNotOfferedAndKeysNamed(t *testing.T) {
	app, screen, broker := newApprovalApp(t, config.Options{DisplayKeys: &config.DisplayKeys{Activate: "<Space>", Approve: "y", Deny: "n", Always: "!"}})
	answer := ask(broker, approval.Request{Kind: "mcp_project", Subject: "/ws/.mcp.json\nt: srv", Reason: "start them?", NoAlways: true})
	text := screen.waitForText(t, "> YES")
	assert.NotContains(t, text, "ALWAYS")
	assert.Contains(t, text, "keys (cursor in this request): y YES · n NO · <Space> on a choice")

	app.Key(view.KeyAlways, screen.lineOf(t, "> YES"))
	note := screen.waitNote(t, "ALWAYS is not offered")
	assert.Contains(t, note, "y YES, n NO")
	assertUnanswered(t, answer)

	app.Key(view.KeyApprove, screen.lineOf(t, "needs approval"))
	assert.Equal(t, approval.Allow, <-answer)
}

// With ALWAYS offered, the block names all three keys (defaults).
func TestApprovalBlockNamesDefaultKeys(t *testing.T) {
	app, screen, broker := newApprovalApp(t, config.Options{})
	_ = app
	answer := ask(broker, approval.Request{Kind: "web", Subject: "example.com", Reason: "fetches a new host"})
	screen.waitForText(t, "keys (cursor in this request): a YES · d NO · A ALWAYS · <CR> on a choice")
	app.Key(view.KeyDeny, screen.lineOf(t, "┃ example.com"))
	assert.Equal(t, approval.Deny, <-answer)
}
