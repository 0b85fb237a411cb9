package httpfetch

import (
	"context"
	"sync/atomic"
	"time"
)

// budget is a fetch's timeout. It is paused while CheckHost runs, since
// a check may wait for the user to approve the host and that wait is not
// network time. pause and resume are called from the goroutine running
// the fetch; the timer fires on its own goroutine.
type budget struct {
	timer   *time.Timer
	left    time.Duration
	since   time.Time
	running bool
	expired atomic.Bool
}

// startBudget cancels ctx (with cause context.DeadlineExceeded) once d
// of unpaused time has passed.
func startBudget(d time.Duration, cancel context.CancelCauseFunc) *budget {
	b := &budget{left: d, since: time.Now(), running: true}
	b.timer = time.AfterFunc(d, func() {
		b.expired.Store(true)
		cancel(context.DeadlineExceeded)
	})
	return b
}

func (b *budget) pause() {
	if b.running && b.timer.Stop() {
		b.left -= time.Since(b.since)
		b.running = false
	}
}

func (b *budget) resume() {
	if !b.running && !b.expired.Load() {
		b.since, b.running = time.Now(), true
		b.timer.Reset(max(b.left, 0))
	}
}

func (b *budget) stop() { b.timer.Stop() }
