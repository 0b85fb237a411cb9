package chat

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/chat/view"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// gatedDisplay blocks the thread goroutine in Publish, once armed, until
// the gate opens, so the thread's inbox can be filled behind it.
type gatedDisplay struct {
	armed atomic.Bool
	gate  chan struct{}
}

func (d *gatedDisplay) Publish(string, *view.Frame) {
	if d.armed.Load() {
		<-d.gate
	}
}

// floodingProvider arms the display, then emits many deltas without
// looking at its context, as an adapter does with events it has already
// read from the connection.
type floodingProvider struct{ display *gatedDisplay }

func (p floodingProvider) Stream(ctx context.Context, _ provider.Request, emit func(provider.Event)) (*provider.Response, error) {
	p.display.armed.Store(true)
	for i := 0; i < 64*inboxSize; i++ {
		emit(provider.TextDelta{Text: "x"})
	}
	return nil, ctx.Err()
}

// Closing a thread whose stream worker is blocked on a full inbox returns:
// the worker gives up sending once the thread is closing.
func TestCloseWithAFullInboxDoesNotDeadlock(t *testing.T) {
	display := &gatedDisplay{gate: make(chan struct{})}
	flood := floodingProvider{display: display}
	th, err := NewThread(context.Background(), config.Profile{Name: "p", Model: "m"}, Deps{
		Tools: tools.Default(), Env: &capabilities.Environment{Name: "test", Cwd: t.TempDir()},
		Display:     display,
		NewProvider: func(config.Profile) (provider.Provider, error) { return flood, nil },
	})
	require.NoError(t, err)
	th.Send("go")

	// The worker fills the inbox while the thread waits at the gate.
	deadline := time.Now().Add(30 * time.Second)
	for len(th.inbox) < inboxSize {
		if time.Now().After(deadline) {
			t.Fatalf("the inbox holds only %d messages", len(th.inbox))
		}
		runtime.Gosched()
	}

	closed := make(chan struct{})
	go func() {
		th.Close()
		close(closed)
	}()
	close(display.gate)
	select {
	case <-closed:
	case <-time.After(30 * time.Second):
		t.Fatal("Close did not return: the stream worker and the thread wait for each other")
	}
}
