package chat

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type rewound struct {
	id  string
	err error
}

func rewind(t *testing.T, h *harness, n int) rewound {
	t.Helper()
	ch := make(chan rewound, 1)
	h.app.RewindConversation(n, func(id string, err error) { ch <- rewound{id, err} })
	select {
	case r := <-ch:
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("the rewind did not answer")
		return rewound{}
	}
}

// Rewinding the conversation to before message 2 continues in a new
// saved thread holding message 1 and its reply, with message 2's text
// back in the input; the whole thread stays saved. Message numbers count
// the user's messages, after a reopen too.
func TestRewindConversationForksBeforeTheMessage(t *testing.T) {
	dir := t.TempDir()
	h, store := savingHarness(t, dir, nil)
	h.app.Send("first question")
	h.fake.Next(t).Reply("first answer")
	h.screen.waitForText(t, "first answer")
	h.app.Send("second question")
	h.fake.Next(t).Reply("second answer")
	h.screen.waitForText(t, "second answer")
	h.screen.waitForText(t, "ready")
	old := h.app.ActiveThreadID()

	assert.ErrorContains(t, rewind(t, h, 3).err, "choose one from 1 to 2")
	r := rewind(t, h, 2)
	require.NoError(t, r.err)
	assert.NotEqual(t, old, r.id)
	text := h.screen.waitForText(t, "first answer")
	assert.NotContains(t, text, "second")
	h.screen.mu.Lock()
	assert.Equal(t, []string{"second question"}, h.screen.restored)
	h.screen.mu.Unlock()

	// The fork goes on from there; the model sees only what was kept.
	h.app.Send("second, again")
	call := h.fake.Next(t)
	msgs := call.Request.Messages
	require.Len(t, msgs, 3)
	assert.Equal(t, "first question", msgs[0].Content[0].Text)
	assert.Equal(t, "second, again", call.LastUserText())
	call.Reply("ok")
	h.screen.waitForText(t, "ok")

	saved, err := store.Load(old)
	require.NoError(t, err)
	assert.Len(t, saved.Messages, 4, "the whole thread stays saved")

	// Reopened in a new app, the fork still numbers its messages.
	h.app.Close()
	h2, _ := savingHarness(t, dir, nil)
	h2.app.SelectThread(r.id)
	h2.screen.waitForText(t, "second, again")
	id, msgs2 := h2.app.ActiveUserMessages()
	assert.Equal(t, r.id, id)
	assert.Equal(t, []string{"first question", "second, again"}, msgs2)
}
