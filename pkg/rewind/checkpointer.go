package rewind

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/checkpoint"
)

// Buffers is the editor's view of the workspace's files. Safe for
// concurrent use.
type Buffers interface {
	// Modified returns the unsaved text of the modified buffers whose
	// files lie in the workspace, by absolute path.
	Modified(ctx context.Context) (map[string][]byte, error)
	// Loaded returns which of paths (absolute) a buffer holds.
	Loaded(ctx context.Context, paths []string) (map[string]bool, error)
}

// Options configure a Checkpointer.
type Options struct {
	// Dir is the store's directory (StoreDir); Workspace the local
	// workspace's root.
	Dir, Workspace string
	// Exclude adds gitignore patterns to checkpoint.DefaultExcludes.
	Exclude []string
	// Buffers is the editor (nil: disk only).
	Buffers Buffers
	// Files writes restored files that a buffer holds: the buffer-aware
	// FileIO without permission checks (the user asked for the restore).
	// Nil: everything goes to disk.
	Files capabilities.FileIO
	// Warn tells the user something once (a workspace too large to
	// checkpoint). Must not block.
	Warn func(string)
	// PruneAfter, when positive, deletes checkpoints older than it once,
	// after the first snapshot (threads.maxAge).
	PruneAfter time.Duration
}

// StoreDir is where a workspace's checkpoints are kept under the data
// directory (stdpath("data")).
func StoreDir(dataDir, workspace string) string {
	return filepath.Join(dataDir, "magenta", "checkpoints", checkpoint.WorkspaceKey(workspace))
}

// Checkpointer takes and restores a workspace's checkpoints. Safe for
// concurrent use; Close stops it.
type Checkpointer struct {
	opts Options

	open    sync.Once
	store   *checkpoint.Store
	openErr error

	start sync.Once
	jobs  chan *job
	// ctx ends at Close: a snapshot running then is cancelled.
	ctx      context.Context
	cancel   context.CancelFunc
	stop     chan struct{}
	stopOnce sync.Once
	worker   sync.WaitGroup

	mu sync.Mutex
	// disabled says why no checkpoint is taken any more (the workspace
	// grew over the store's bounds); told once.
	disabled string
	// pruned: pruneOnce ran (snapshot goroutine only).
	pruned bool
	// ops counts the operations using the store outside the snapshot
	// goroutine (begin); closed refuses new ones. Close waits for them
	// before it closes the store.
	ops    sync.WaitGroup
	closed bool
	// adopting holds the threads whose checkpoints are being copied
	// (AdoptLater), closed when done.
	adopting map[string]chan struct{}
}

// job is one snapshot asked for; done is closed when it has run.
type job struct {
	ctx          context.Context
	group, label string
	done         chan struct{}
	cp           checkpoint.Checkpoint
	err          error
}

// jobQueue bounds the snapshots waiting; a message's checkpoint beyond
// it waits for room (they are taken in order, never dropped).
const jobQueue = 64

// New returns a checkpointer; nothing is read or started until the first
// checkpoint (off the first toggle's path).
func New(opts Options) *Checkpointer {
	ctx, cancel := context.WithCancel(context.Background())
	return &Checkpointer{opts: opts, jobs: make(chan *job, jobQueue), stop: make(chan struct{}), ctx: ctx, cancel: cancel}
}

// Close stops the snapshot goroutine (a snapshot running is cancelled by
// its own context) and closes the store.
func (c *Checkpointer) Close() {
	c.stopOnce.Do(func() {
		c.mu.Lock()
		c.closed = true
		c.mu.Unlock()
		close(c.stop)
		c.cancel()
	})
	c.worker.Wait()
	c.ops.Wait()
	if c.store != nil {
		_ = c.store.Close()
	}
}

// begin marks an operation that uses the store outside the snapshot
// goroutine (a rewind, a listing, a deletion); call done when it ends.
func (c *Checkpointer) begin() (done func(), err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, errors.New("checkpoints are stopped (the host is closing)")
	}
	c.ops.Add(1)
	return c.ops.Done, nil
}

// use is begin with the store: for an operation that reads or changes
// checkpoints outside the snapshot goroutine.
func (c *Checkpointer) use() (*checkpoint.Store, func(), error) {
	done, err := c.begin()
	if err != nil {
		return nil, nil, err
	}
	store, err := c.opened()
	if err != nil {
		done()
		return nil, nil, err
	}
	return store, done, nil
}

// opened returns the store, opening it on first use (git init on the
// first ever: tens of milliseconds).
func (c *Checkpointer) opened() (*checkpoint.Store, error) {
	c.open.Do(func() {
		c.store, c.openErr = checkpoint.Open(checkpoint.Options{Dir: c.opts.Dir, Workspace: c.opts.Workspace, Exclude: c.opts.Exclude})
	})
	return c.store, c.openErr
}

// running starts the snapshot goroutine once; it opens the store, so
// asking for the first checkpoint costs the asker nothing.
func (c *Checkpointer) running() {
	c.start.Do(func() {
		c.worker.Add(1)
		go c.run()
	})
}

// Disabled says why checkpoints are not taken ("" when they are).
func (c *Checkpointer) Disabled() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.disabled
}

// covers says whether env's files are this checkpointer's: a local
// environment in its workspace.
func (c *Checkpointer) covers(env *capabilities.Environment) bool {
	return env != nil && env.Name == "local" && env.Cwd == c.opts.Workspace
}

// ask queues a snapshot; wait for it on the returned job's done.
func (c *Checkpointer) ask(ctx context.Context, group, label string) (*job, error) {
	if why := c.Disabled(); why != "" {
		return nil, errors.New(why)
	}
	c.running()
	j := &job{ctx: ctx, group: group, label: label, done: make(chan struct{})}
	select {
	case c.jobs <- j:
		return j, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.stop:
		return nil, errors.New("checkpoints are stopped")
	}
}

// tryAsk queues a snapshot without waiting, when the queue has room (or
// checkpoints are off: nothing to do); false when it is full.
func (c *Checkpointer) tryAsk(group, label string) bool {
	if c.Disabled() != "" {
		return true
	}
	c.running()
	select {
	case c.jobs <- &job{ctx: c.ctx, group: group, label: label, done: make(chan struct{})}:
		return true
	case <-c.stop:
		return true
	default:
		return false
	}
}

// snapshot takes a checkpoint and waits for it.
func (c *Checkpointer) snapshot(ctx context.Context, group, label string) (checkpoint.Checkpoint, error) {
	j, err := c.ask(ctx, group, label)
	if err != nil {
		return checkpoint.Checkpoint{}, err
	}
	select {
	case <-j.done:
		return j.cp, j.err
	case <-ctx.Done():
		return checkpoint.Checkpoint{}, ctx.Err()
	case <-c.stop:
		return checkpoint.Checkpoint{}, errors.New("checkpoints are stopped")
	}
}

// flush waits until the snapshots asked for so far are taken (a rewind
// right after a message must see its checkpoint).
func (c *Checkpointer) flush(ctx context.Context) error {
	c.running()
	j := &job{ctx: ctx, done: make(chan struct{})}
	select {
	case c.jobs <- j:
	case <-ctx.Done():
		return ctx.Err()
	case <-c.stop:
		return errors.New("checkpoints are stopped")
	}
	select {
	case <-j.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-c.stop:
		return errors.New("checkpoints are stopped")
	}
}

// run takes the snapshots asked for, in order.
func (c *Checkpointer) run() {
	defer c.worker.Done()
	if _, err := c.opened(); err != nil {
		c.disable(fmt.Sprintf("checkpoints are off: the store %s cannot be opened (%v)", c.opts.Dir, err))
	}
	for {
		select {
		case <-c.stop:
			return
		case j := <-c.jobs:
			if j.group == "" { // a barrier (flush): nothing to take
				close(j.done)
				continue
			}
			ctx, cancel := context.WithCancel(j.ctx)
			stop := context.AfterFunc(c.ctx, cancel)
			j.cp, j.err = c.take(ctx, j.group, j.label)
			stop()
			cancel()
			close(j.done)
			c.pruneOnce()
		}
	}
}

// pruneOnce deletes the old checkpoints after the first snapshot of the
// session: never on the way to the first frame, and only in a store
// that is used.
func (c *Checkpointer) pruneOnce() {
	if c.opts.PruneAfter <= 0 || c.pruned || c.store == nil {
		return
	}
	c.pruned = true
	if err := c.store.Prune(c.ctx, c.opts.PruneAfter); err != nil {
		slog.Info("pruning checkpoints", "err", err)
	}
}

// take is one snapshot, with the editor's unsaved buffers.
func (c *Checkpointer) take(ctx context.Context, group, label string) (checkpoint.Checkpoint, error) {
	if err := ctx.Err(); err != nil {
		return checkpoint.Checkpoint{}, err
	}
	if why := c.Disabled(); why != "" {
		return checkpoint.Checkpoint{}, errors.New(why)
	}
	overlay, err := c.overlay(ctx)
	if err != nil {
		return checkpoint.Checkpoint{}, err
	}
	cp, err := c.store.Snapshot(ctx, group, label, overlay)
	var tooLarge *checkpoint.TooLargeError
	if errors.As(err, &tooLarge) {
		c.disable(fmt.Sprintf("checkpoints are off for this workspace: %v (:help magenta-rewind)", err))
	}
	return cp, err
}

// overlay is the unsaved text of the editor's modified buffers.
func (c *Checkpointer) overlay(ctx context.Context) (map[string][]byte, error) {
	if c.opts.Buffers == nil {
		return nil, nil
	}
	m, err := c.opts.Buffers.Modified(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the editor's modified buffers: %w", err)
	}
	return c.inWorkspace(m), nil
}

// disable stops checkpoints and tells the user once.
func (c *Checkpointer) disable(why string) {
	c.mu.Lock()
	first := c.disabled == ""
	if first {
		c.disabled = why
	}
	c.mu.Unlock()
	if first {
		slog.Warn("checkpoints disabled", "why", why)
		if c.opts.Warn != nil {
			c.opts.Warn("magenta: " + why)
		}
	}
}
