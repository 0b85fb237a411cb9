package chat

import (
	"context"
	"fmt"
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

// TestEventsReachObserversInOrder: a change to the history is told to
// every observer, in the order they were attached, after it happened;
// StateChanged is told once per change of state.
func TestEventsReachObserversInOrder(t *testing.T) {
	th := newThread(context.Background(), "t", config.Profile{Name: "p"}, Deps{})
	var seen []string
	th.observe(ObserverFunc(func(th *Thread, ev ThreadEvent) {
		if m, ok := ev.(MessageAppended); ok {
			assert.Len(t, th.messages, 1, "told after the message joined the history")
			seen = append(seen, "first:"+m.Message.Content[0].Text)
		}
	}))
	th.observe(ObserverFunc(func(_ *Thread, ev ThreadEvent) {
		switch ev := ev.(type) {
		case MessageAppended:
			seen = append(seen, "second:"+ev.Message.Content[0].Text)
		case StateChanged:
			seen = append(seen, "state:"+ev.From.String()+"→"+ev.To.String())
		}
	}))
	th.appendMessage(provider.Message{Role: provider.RoleUser, Content: []provider.Block{provider.TextBlock("hi")}})
	th.appendMessage(provider.Message{Role: provider.RoleUser}) // empty: dropped, told no one
	th.readingContext = true
	th.noteState()
	th.noteState()
	assert.Equal(t, []string{"first:hi", "second:hi", "state:idle→reading context"}, seen)
}

// TestNewThreadAttachesNoObservers: the constructor attaches none, so a
// restored thread can attach its own after the rebuild and replaying its
// history tells no one (what the replaying flag once did); the persist
// tests check a reopened thread's log holds each message once.
func TestNewThreadAttachesNoObservers(t *testing.T) {
	th := newThread(context.Background(), "t", config.Profile{Name: "p"}, Deps{})
	assert.Empty(t, th.observers)
}

// TestMetaChangedOncePerChange: the title, profile and usage reach the
// observers (the log saves them from there) once per change.
func TestMetaChangedOncePerChange(t *testing.T) {
	th := newThread(context.Background(), "t", config.Profile{Name: "p"}, Deps{})
	var told []MetaChanged
	th.observe(ObserverFunc(func(_ *Thread, ev ThreadEvent) {
		if m, ok := ev.(MetaChanged); ok {
			told = append(told, m)
		}
	}))
	th.noteMeta()
	th.noteMeta()
	th.title = "fix the parser"
	th.noteMeta()
	assert.Equal(t, []MetaChanged{{Profile: "p"}, {Title: "fix the parser", Profile: "p"}}, told)
}

// TestAnAppObserverSeesATurn: an observer given to the App (how
// checkpoints or hooks plug in) sees a turn with a tool call in the order
// it happened, on the thread's goroutine.
func TestAnAppObserverSeesATurn(t *testing.T) {
	screen := newRecordingScreen()
	fake := providertest.New()
	seen := make(chan string, 64)
	app, err := NewApp(context.Background(), config.Options{Profiles: testProfiles}, AppDeps{
		Screen: screen, Tools: tools.Default(), Env: &capabilities.Environment{Name: "test", Cwd: t.TempDir()},
		NewProvider: func(config.Profile) (provider.Provider, error) { return fake, nil },
		Observers: []Observer{ObserverFunc(func(_ *Thread, ev ThreadEvent) {
			switch ev := ev.(type) {
			case MessageAppended:
				seen <- "message:" + string(ev.Message.Role)
			case ToolCallStarted:
				seen <- "started:" + ev.Name
			case ToolCallEnded:
				seen <- "ended:" + ev.Name
			case TurnEnded:
				seen <- fmt.Sprintf("turn ended, clean %v", ev.Clean)
			}
		})},
	})
	require.NoError(t, err)
	t.Cleanup(app.Close)
	screen.waitForText(t, "# New thread")
	app.Send("name it")
	call := fake.Next(t)
	call.ToolUse("tu_1", "thread_title", map[string]string{"title": "Named"})
	call.Stop(provider.StopToolUse)
	fake.Next(t).Reply("done")
	want := []string{"message:user", "message:assistant", "started:thread_title", "ended:thread_title", "message:user", "message:assistant", "turn ended, clean true"}
	var got []string
	for range want {
		select {
		case s := <-seen:
			got = append(got, s)
		case <-time.After(10 * time.Second):
			t.Fatalf("events so far: %v", got)
		}
	}
	assert.Equal(t, want, got)
}

// An observer that panics is logged and skipped; the thread and the
// observers after it go on.
func TestAPanickingObserverDoesNotStopTheThread(t *testing.T) {
	screen := newRecordingScreen()
	fake := providertest.New()
	ended := make(chan bool, 4)
	app, err := NewApp(context.Background(), config.Options{Profiles: testProfiles}, AppDeps{
		Screen: screen, Tools: tools.Default(), Env: &capabilities.Environment{Name: "test", Cwd: t.TempDir()},
		NewProvider: func(config.Profile) (provider.Provider, error) { return fake, nil },
		Observers: []Observer{
			ObserverFunc(func(_ *Thread, ev ThreadEvent) {
				if _, ok := ev.(ToolCallStarted); ok {
					panic("observer bug")
				}
			}),
			ObserverFunc(func(_ *Thread, ev ThreadEvent) {
				if ev, ok := ev.(TurnEnded); ok {
					ended <- ev.Clean
				}
			}),
		},
	})
	require.NoError(t, err)
	t.Cleanup(app.Close)
	screen.waitForText(t, "# New thread")
	app.Send("name it")
	call := fake.Next(t)
	call.ToolUse("tu_1", "thread_title", map[string]string{"title": "Named"})
	call.Stop(provider.StopToolUse)
	fake.Next(t).Reply("done")
	select {
	case clean := <-ended:
		assert.True(t, clean)
	case <-time.After(10 * time.Second):
		t.Fatal("the turn did not end")
	}
	screen.waitForText(t, "Named")
}
