package chat

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/provider"
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
