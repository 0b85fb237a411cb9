package acp

import (
	"context"
	"log/slog"
	"sync"

	sdk "github.com/coder/acp-go-sdk"
)

// updates writes session/update notifications in order on one goroutine:
// observers run on thread goroutines and must not wait on the client.
type updates struct {
	ctx  context.Context
	conn *sdk.AgentSideConnection

	mu     sync.Mutex
	queue  []item
	wake   chan struct{}
	closed bool
	done   chan struct{}
}

// item is a notification, or a flush barrier (done closed once written).
type item struct {
	n       sdk.SessionNotification
	barrier chan struct{}
}

func newUpdates(ctx context.Context, conn *sdk.AgentSideConnection) *updates {
	u := &updates{ctx: ctx, conn: conn, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go u.run()
	return u
}

// send queues a notification; it never blocks.
func (u *updates) send(session string, up sdk.SessionUpdate) {
	u.push(item{n: sdk.SessionNotification{SessionId: sdk.SessionId(session), Update: up}})
}

// flush waits until everything queued before it is written, the writer
// stopped, or ctx ends (a client that stopped reading must not hold a
// tool, or the agent's exit, forever).
func (u *updates) flush(ctx context.Context) {
	b := make(chan struct{})
	u.push(item{barrier: b})
	select {
	case <-b:
	case <-u.done:
	case <-ctx.Done():
	}
}

func (u *updates) push(it item) {
	u.mu.Lock()
	if u.closed {
		u.mu.Unlock()
		if it.barrier != nil {
			close(it.barrier)
		}
		return
	}
	u.queue = append(u.queue, it)
	u.mu.Unlock()
	select {
	case u.wake <- struct{}{}:
	default:
	}
}

func (u *updates) close() {
	u.mu.Lock()
	u.closed = true
	u.mu.Unlock()
	select {
	case u.wake <- struct{}{}:
	default:
	}
	<-u.done
}

func (u *updates) run() {
	defer close(u.done)
	for {
		<-u.wake
		u.mu.Lock()
		batch, closed := u.queue, u.closed
		u.queue = nil
		u.mu.Unlock()
		for _, it := range batch {
			if it.barrier != nil {
				close(it.barrier)
				continue
			}
			if err := u.conn.SessionUpdate(u.ctx, it.n); err != nil {
				slog.Warn("acp: session/update not sent", "err", err)
			}
		}
		if closed {
			return
		}
	}
}
