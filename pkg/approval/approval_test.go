package approval

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func waitPending(t *testing.T, b *Broker, n int) []Request {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if p := b.Pending(""); len(p) == n {
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("want %d pending, have %d", n, len(b.Pending("")))
		}
		time.Sleep(time.Millisecond)
	}
}

func TestAskAnswer(t *testing.T) {
	var mu sync.Mutex
	var events []string
	b := NewBroker(func(thread string, added *Request) {
		mu.Lock()
		defer mu.Unlock()
		if added != nil {
			events = append(events, "add "+thread)
		} else {
			events = append(events, "remove "+thread)
		}
	})
	got := make(chan Decision, 2)
	for _, th := range []string{"t1", "t2"} {
		go func() {
			d, err := b.Ask(context.Background(), Request{ThreadID: th, Subject: "rm -rf x"})
			assert.NoError(t, err)
			got <- d
		}()
		waitPending(t, b, map[string]int{"t1": 1, "t2": 2}[th])
	}
	oldest, ok := b.Oldest()
	require.True(t, ok)
	assert.Equal(t, "t1", oldest.ThreadID)
	assert.Len(t, b.Pending("t2"), 1)
	assert.True(t, b.Answer(oldest.ID, AllowAlways))
	assert.False(t, b.Answer(oldest.ID, Deny), "the first answer wins")
	assert.Equal(t, AllowAlways, <-got)
	second := waitPending(t, b, 1)[0]
	assert.True(t, b.Answer(second.ID, Deny))
	assert.Equal(t, Deny, <-got)
	waitPending(t, b, 0)
	mu.Lock()
	defer mu.Unlock()
	assert.ElementsMatch(t, []string{"add t1", "add t2", "remove t1", "remove t2"}, events)
}

func TestAskWithdrawnOnCancel(t *testing.T) {
	b := NewBroker(nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		d, err := b.Ask(ctx, Request{ThreadID: "t"})
		assert.Equal(t, Deny, d)
		done <- err
	}()
	req := waitPending(t, b, 1)[0]
	cancel()
	select {
	case err := <-done:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(5 * time.Second):
		t.Fatal("Ask did not return after cancel")
	}
	assert.Empty(t, b.Pending(""))
	assert.False(t, b.Answer(req.ID, Allow))
}

// ALWAYS is refused for a request that does not offer it: the request
// keeps waiting for an answer it offers.
func TestAlwaysRefusedWhenNotOffered(t *testing.T) {
	b := NewBroker(nil)
	got := make(chan Decision, 1)
	go func() {
		d, _ := b.Ask(context.Background(), Request{ThreadID: "t", Kind: "mcp_project", NoAlways: true})
		got <- d
	}()
	req := waitPending(t, b, 1)[0]
	assert.False(t, b.Answer(req.ID, AllowAlways))
	assert.Len(t, b.Pending(""), 1, "still waiting")
	assert.True(t, b.Answer(req.ID, Allow))
	assert.Equal(t, Allow, <-got)
}

// A Policy answers at once, with its reason for a no; without one (or
// when it passes), the request waits for a person as before.
func TestPolicyAnswersAtOnce(t *testing.T) {
	b := NewBroker(nil)
	b.SetPolicy(func(_ context.Context, req Request) (Decision, string, bool) {
		if req.Kind == "pass" {
			return Deny, "", false
		}
		return Deny, "no one to ask", true
	})
	d, why, err := b.AskWhy(context.Background(), Request{Kind: "bash", Subject: "rm x"})
	require.NoError(t, err)
	assert.Equal(t, Deny, d)
	assert.Equal(t, "no one to ask", why)
	assert.Empty(t, b.Pending(""), "a request the policy answered is not pending")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan Decision, 1)
	go func() { d, _ := b.Ask(ctx, Request{Kind: "pass"}); done <- d }()
	b.Answer(waitPending(t, b, 1)[0].ID, Allow)
	assert.Equal(t, Allow, <-done)
	cancel()
}
