package chat

import "sync"

// limiter lets at most n of a parent's sub-agents run at once and starts
// the queued ones in the order they were spawned (a buffered channel with
// one sender per sub-agent would let them race for a place). Safe for
// concurrent use.
type limiter struct {
	mu      sync.Mutex
	free    int
	waiting []*ticket
}

// ticket is one sub-agent's place in the queue; ready is closed when it
// may run.
type ticket struct {
	ready   chan struct{}
	granted bool
	done    bool
}

func newLimiter(n int) *limiter { return &limiter{free: max(n, 1)} }

// take queues a sub-agent, granting it a place at once when one is free.
func (l *limiter) take() *ticket {
	l.mu.Lock()
	defer l.mu.Unlock()
	tk := &ticket{ready: make(chan struct{})}
	if l.free > 0 {
		l.free--
		tk.grant()
	} else {
		l.waiting = append(l.waiting, tk)
	}
	return tk
}

func (tk *ticket) grant() {
	tk.granted = true
	close(tk.ready)
}

// giveBack ends tk: a granted place goes to the next in the queue, a
// ticket still waiting leaves it. Calling it again does nothing.
func (l *limiter) giveBack(tk *ticket) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if tk == nil || tk.done {
		return
	}
	tk.done = true
	if !tk.granted {
		for i, w := range l.waiting {
			if w == tk {
				l.waiting = append(l.waiting[:i], l.waiting[i+1:]...)
				break
			}
		}
		return
	}
	if len(l.waiting) > 0 {
		next := l.waiting[0]
		l.waiting = l.waiting[1:]
		next.grant()
		return
	}
	l.free++
}
