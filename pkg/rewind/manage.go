package rewind

import (
	"context"
	"log/slog"
	"time"
)

// DeleteThread deletes a deleted thread's checkpoints.
func (c *Checkpointer) DeleteThread(ctx context.Context, thread string) error {
	store, done, err := c.use()
	if err != nil {
		return err
	}
	defer done()
	return store.DeleteGroup(ctx, thread)
}

// Prune deletes the checkpoints older than maxAge (threads.maxAge: the
// threads they belong to are pruned after the same time).
func (c *Checkpointer) Prune(ctx context.Context, maxAge time.Duration) error {
	store, done, err := c.use()
	if err != nil {
		return err
	}
	defer done()
	return store.Prune(ctx, maxAge)
}

// AdoptLater is Adopt on a goroutine of its own; it returns at once (the
// app's goroutine calls it), and the new thread's checkpoints are not
// read before the copy has ended.
func (c *Checkpointer) AdoptLater(from, to string, upTo int, done func(error)) {
	ch := make(chan struct{})
	c.mu.Lock()
	if c.adopting == nil {
		c.adopting = map[string]chan struct{}{}
	}
	c.adopting[to] = ch
	c.mu.Unlock()
	go func() {
		defer func() {
			c.mu.Lock()
			delete(c.adopting, to)
			c.mu.Unlock()
			close(ch)
		}()
		ctx, cancel := context.WithTimeout(c.ctx, adoptWait)
		defer cancel()
		err := c.Adopt(ctx, from, to, upTo)
		if done != nil {
			done(err)
		}
	}()
}

// adoptWait bounds copying a thread's checkpoints.
const adoptWait = time.Minute

// adopted waits until thread's checkpoints are copied, if they are being.
func (c *Checkpointer) adopted(ctx context.Context, thread string) error {
	c.mu.Lock()
	ch := c.adopting[thread]
	c.mu.Unlock()
	if ch == nil {
		return nil
	}
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Adopt gives thread to the checkpoints of from's messages 1..upTo: a
// rewound conversation continues in a new thread, whose earlier messages
// are from's.
func (c *Checkpointer) Adopt(ctx context.Context, from, to string, upTo int) error {
	store, done, err := c.use()
	if err != nil {
		return err
	}
	defer done()
	byLabel, err := c.labels(ctx, from)
	if err != nil {
		return err
	}
	for n := 1; n <= upTo; n++ {
		if cp, ok := byLabel[MessageLabel(n)]; ok {
			if _, err := store.Copy(ctx, cp.ID, to, MessageLabel(n)); err != nil {
				return err
			}
		}
	}
	return nil
}

// WarmGroup is the group of the snapshot Warm takes.
const WarmGroup = "session"

// Warm queues a first snapshot without waiting: in a large workspace the
// first one hashes every file (seconds for 200 MB), and taken while the
// user writes their first message it is not paid by the first tool
// call, whose checkpoint then costs what changed since.
func (c *Checkpointer) Warm() {
	if _, err := c.ask(c.ctx, WarmGroup, "sidebar opened"); err != nil {
		slog.Debug("no first checkpoint", "err", err)
	}
}
