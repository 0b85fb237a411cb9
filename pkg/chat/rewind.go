package chat

import (
	"fmt"
	"strings"

	"github.com/google/uuid"

	"github.com/magenta-nvim/magenta/pkg/capabilities"

	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/threadstore"
)

// userPoint is one message the user sent, as the log holds it: the
// record it starts (the n-th message record) and the text typed.
// Messages queued during a turn and sent together are one point.
type userPoint struct {
	record int
	text   string
}

// typedText is the text the user typed in m.
func typedText(m provider.Message, typed []threadstore.Typed) string {
	var parts []string
	for _, x := range typed {
		if x.Block >= 0 && x.Block < len(m.Content) && m.Content[x.Block].Kind == provider.BlockText {
			parts = append(parts, m.Content[x.Block].Text)
		}
	}
	return strings.Join(parts, "\n\n")
}

// noteRebuiltUser records saved message i as the user's when rebuilding
// it drew user entries.
func (t *Thread) noteRebuiltUser(i int, added []*entry) {
	var parts []string
	for _, e := range added {
		if e.kind == entryUser {
			parts = append(parts, e.text)
		}
	}
	if len(parts) > 0 {
		t.log.users = append(t.log.users, userPoint{record: i, text: strings.Join(parts, "\n\n")})
	}
}

// UserMessageCount is how many messages the user has sent in the thread
// (the number of the last one, counting from 1). For observers, which
// run on the thread's goroutine: a MessageAppended with typed blocks is
// the user's message of that number.
func (t *Thread) UserMessageCount() int { return len(t.log.users) }

// UserMessages returns the texts of the messages the user sent in the
// thread, oldest first (numbered from 1 by :Magenta rewind).
func (t *Thread) UserMessages() []string {
	ch := make(chan []string, 1)
	t.enqueue(msgQuery{func() {
		out := make([]string, len(t.log.users))
		for i, u := range t.log.users {
			out[i] = u.text
		}
		ch <- out
	}})
	select {
	case out := <-ch:
		return out
	case <-t.done:
		return nil
	}
}

// msgQuery runs f on the thread's goroutine (f must not block).
type msgQuery struct{ f func() }

// rewindPoint is where the conversation goes back to: the log's first
// keep messages stay, and text goes back into the input.
type rewindPoint struct {
	keep int
	text string
}

// rewindPointFor finds user message n (1-based) when the thread may be
// rewound now.
func (t *Thread) rewindPointFor(n int) (rewindPoint, error) {
	if s := t.state(); s != stateIdle {
		return rewindPoint{}, fmt.Errorf("the thread is %s; stop it first (:Magenta abort)", s)
	}
	if n < 1 || n > len(t.log.users) {
		return rewindPoint{}, fmt.Errorf("the thread has %d messages of yours; choose one from 1 to %d", len(t.log.users), len(t.log.users))
	}
	if t.log.w == nil {
		why := "threads are not saved"
		if t.log.readOnly != "" {
			why = t.log.readOnly
		}
		return rewindPoint{}, fmt.Errorf("the conversation cannot be rewound: %s", why)
	}
	u := t.log.users[n-1]
	return rewindPoint{keep: u.record, text: u.text}, nil
}

// RewindConversation goes back to before the user's message n of the
// active thread: the conversation continues in a new saved thread
// holding what came before it, shown in its place, with the message's
// text back in the input to edit and send again. The whole thread stays
// saved, and :Magenta threads reopens it. done (may be nil) is told the
// new thread's id, or why nothing changed; it runs on the app goroutine.
func (a *App) RewindConversation(n int, done func(id string, err error)) {
	if done == nil {
		done = func(string, error) {}
	}
	a.do(func() {
		t := a.active
		t.enqueue(msgQuery{func() {
			p, err := t.rewindPointFor(n)
			a.do(func() { a.forkAt(t, p, err, done) })
		}})
	})
}

// forkAt saves the fork of t at p and shows it in t's place.
func (a *App) forkAt(t *Thread, p rewindPoint, err error, done func(string, error)) {
	if err == nil && a.deps.Store == nil {
		err = fmt.Errorf("the conversation cannot be rewound: threads are not saved")
	}
	if err != nil {
		done("", err)
		return
	}
	id, err := uuid.NewV7()
	if err != nil {
		done("", err)
		return
	}
	title := a.summaryOf(t.ID).Title
	if title == "" {
		title = "rewound thread"
	}
	if err := a.deps.Store.Fork(t.ID, p.keep, id.String(), title); err != nil {
		done("", fmt.Errorf("the conversation could not be rewound: %w", err))
		return
	}
	if a.active == t {
		a.dropThread(t)
	}
	a.selectThread(id.String())
	if r, ok := a.deps.Screen.(InputRestorer); ok && p.text != "" {
		r.RestoreInput(p.text)
	}
	done(id.String(), nil)
}

// ActiveUserMessages returns the active thread's id and the texts of the
// messages the user sent in it, oldest first (see UserMessages). Called
// from outside the app's goroutine; it waits for the app and the thread.
func (a *App) ActiveUserMessages() (string, []string) {
	t := a.Active()
	if t == nil {
		return "", nil
	}
	return t.ID, t.UserMessages()
}

// Env is the environment the thread works in (for observers).
func (t *Thread) Env() *capabilities.Environment { return t.deps.Env }

// Active returns the thread shown (or last shown) in the sidebar. Its
// exported methods are safe from any goroutine.
func (a *App) Active() *Thread {
	ch := make(chan *Thread, 1)
	a.do(func() { ch <- a.active })
	select {
	case t := <-ch:
		return t
	case <-a.done:
		return nil
	}
}
