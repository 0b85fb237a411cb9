package pathlock

import (
	"context"
	"sync"
)

// Table holds the per-path locks. The zero value is ready; it is safe for
// concurrent use.
type Table struct {
	mu    sync.Mutex
	locks map[string]*entry
}

// entry is one path's lock: a one-slot channel (so waiting can be
// cancelled) and how many callers hold or wait for it.
type entry struct {
	slot  chan struct{}
	users int
}

// Lock waits until path is free or ctx ends, and returns the function that
// frees it again.
func (t *Table) Lock(ctx context.Context, path string) (unlock func(), err error) {
	t.mu.Lock()
	if t.locks == nil {
		t.locks = map[string]*entry{}
	}
	e := t.locks[path]
	if e == nil {
		e = &entry{slot: make(chan struct{}, 1)}
		t.locks[path] = e
	}
	e.users++
	t.mu.Unlock()
	select {
	case e.slot <- struct{}{}:
		return func() { <-e.slot; t.leave(path, e) }, nil
	case <-ctx.Done():
		t.leave(path, e)
		return nil, ctx.Err()
	}
}

// leave forgets path once nobody holds or waits for it.
func (t *Table) leave(path string, e *entry) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e.users--; e.users == 0 {
		delete(t.locks, path)
	}
}
