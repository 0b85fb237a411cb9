package rewind

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/magenta-nvim/magenta/pkg/checkpoint"
)

// Entry is one of the user's messages as :Magenta rewind lists it.
type Entry struct {
	N    int    `msgpack:"n"`
	Text string `msgpack:"text"`
	// Checkpoint: the workspace was recorded when it was sent; Files,
	// Added and Removed say what changed since (lines; -1 when unknown).
	Checkpoint bool `msgpack:"checkpoint"`
	Files      int  `msgpack:"files"`
	Added      int  `msgpack:"added"`
	Removed    int  `msgpack:"removed"`
}

// Preview is what restoring the code before message N would do.
type Preview struct {
	Diff  string   `msgpack:"diff"`
	Files []string `msgpack:"files"`
	// Conflicts are files among Files changed since the agent last
	// touched the workspace — by the user, in a buffer or on disk.
	Conflicts []string `msgpack:"conflicts"`
}

// Report is what a restore did.
type Report struct {
	Files []string // every path restored, created or removed
	// Buffers are the files restored through their buffer (one undo
	// step each); Open are files removed that a buffer still shows.
	Buffers, Open []string
}

// ConflictError: files to restore were changed since the agent's last
// checkpoint; nothing was restored.
type ConflictError struct{ Paths []string }

func (e *ConflictError) Error() string {
	return fmt.Sprintf("%s changed since the agent's last change (yours?): restoring would overwrite %s; use :Magenta rewind N code! to restore anyway",
		plural(len(e.Paths), "file"), strings.Join(e.Paths, ", "))
}

// Messages lists the user's messages of a thread (texts, oldest first)
// with what changed in the workspace since each.
func (c *Checkpointer) Messages(ctx context.Context, thread string, texts []string, overlay map[string][]byte) ([]Entry, error) {
	out := make([]Entry, len(texts))
	for i, text := range texts {
		out[i] = Entry{N: i + 1, Text: text}
	}
	store, done, err := c.use()
	if err != nil {
		return out, err
	}
	defer done()
	byLabel, err := c.labels(ctx, thread)
	if err != nil || len(byLabel) == 0 {
		return out, err
	}
	overlay = c.inWorkspace(overlay)
	for i := range out {
		cp, ok := byLabel[MessageLabel(out[i].N)]
		if !ok {
			continue
		}
		changes, err := store.Changes(ctx, cp.ID, overlay)
		if err != nil {
			return out, err
		}
		out[i].Checkpoint, out[i].Files = true, len(changes)
		for _, ch := range changes {
			if ch.Added < 0 || out[i].Added < 0 {
				out[i].Added, out[i].Removed = -1, -1
				continue
			}
			out[i].Added += ch.Added
			out[i].Removed += ch.Removed
		}
	}
	return out, nil
}

// labels maps the thread's checkpoints by label (the latest of each).
func (c *Checkpointer) labels(ctx context.Context, thread string) (map[string]checkpoint.Checkpoint, error) {
	store, err := c.opened()
	if err != nil {
		return nil, err
	}
	if err := c.adopted(ctx, thread); err != nil {
		return nil, err
	}
	if err := c.flush(ctx); err != nil {
		return nil, err
	}
	cps, err := store.List(ctx, thread)
	if err != nil {
		return nil, err
	}
	out := make(map[string]checkpoint.Checkpoint, len(cps))
	for _, cp := range cps {
		out[cp.Label] = cp
	}
	return out, nil
}

// messageCheckpoint is the checkpoint of the thread's message n.
func (c *Checkpointer) messageCheckpoint(ctx context.Context, thread string, n int) (checkpoint.Checkpoint, error) {
	byLabel, err := c.labels(ctx, thread)
	if err != nil {
		return checkpoint.Checkpoint{}, err
	}
	cp, ok := byLabel[MessageLabel(n)]
	if !ok {
		why := "it was sent before checkpoints were taken, or they were off"
		if d := c.Disabled(); d != "" {
			why = d
		}
		return cp, fmt.Errorf("there is no checkpoint of message %d of this thread (%s)", n, why)
	}
	return cp, nil
}

// plan is what restoring message n's checkpoint would do now (the
// editor's unsaved buffers in the workspace being overlay), with the
// conflicts.
func (c *Checkpointer) plan(ctx context.Context, thread string, n int, overlay map[string][]byte) (checkpoint.Plan, []string, error) {
	store, err := c.opened()
	if err != nil {
		return checkpoint.Plan{}, nil, err
	}
	cp, err := c.messageCheckpoint(ctx, thread, n)
	if err != nil {
		return checkpoint.Plan{}, nil, err
	}
	p, err := store.Plan(ctx, cp.ID, overlay)
	if err != nil {
		return p, nil, err
	}
	conflicts, err := c.conflicts(ctx, p, overlay)
	return p, conflicts, err
}

// inWorkspace is overlay without the buffers of files outside the
// workspace.
func (c *Checkpointer) inWorkspace(overlay map[string][]byte) map[string][]byte {
	out := make(map[string][]byte, len(overlay))
	for p, text := range overlay {
		if rel, err := filepath.Rel(c.opts.Workspace, p); err == nil && filepath.IsLocal(rel) {
			out[p] = text
		}
	}
	return out
}

// conflicts are the paths of p changed since the latest checkpoint of
// the workspace (any thread's): the agent's last known state.
func (c *Checkpointer) conflicts(ctx context.Context, p checkpoint.Plan, overlay map[string][]byte) ([]string, error) {
	all, err := c.store.List(ctx, "")
	if err != nil || len(all) == 0 {
		return nil, err
	}
	changed, err := c.store.Changes(ctx, all[len(all)-1].ID, overlay)
	if err != nil {
		return nil, err
	}
	since := make(map[string]bool, len(changed))
	for _, ch := range changed {
		since[ch.Path] = true
	}
	var out []string
	for _, f := range p.Files {
		if since[f.Path] {
			out = append(out, f.Path)
		}
	}
	return out, nil
}

// Preview says what restoring the code before message n would change.
func (c *Checkpointer) Preview(ctx context.Context, thread string, n int, overlay map[string][]byte) (Preview, error) {
	done, err := c.begin()
	if err != nil {
		return Preview{}, err
	}
	defer done()
	p, conflicts, err := c.plan(ctx, thread, n, c.inWorkspace(overlay))
	if err != nil {
		return Preview{}, err
	}
	// Empty lists, not nil ones: Lua reads them as tables.
	out := Preview{Diff: p.Preview, Conflicts: append([]string{}, conflicts...), Files: make([]string, len(p.Files))}
	for i, f := range p.Files {
		out.Files[i] = f.Path
	}
	return out, nil
}

// Restore puts the workspace's files back as they were before the
// thread's message n. Files no buffer holds are written first, all or
// nothing; then each file a buffer holds is written through it. With
// conflicts and !force nothing is restored (*ConflictError).
func (c *Checkpointer) Restore(ctx context.Context, thread string, n int, force bool) (Report, error) {
	done, err := c.begin()
	if err != nil {
		return Report{}, err
	}
	defer done()
	overlay, err := c.overlay(ctx)
	if err != nil {
		return Report{}, err
	}
	p, conflicts, err := c.plan(ctx, thread, n, overlay)
	if err != nil {
		return Report{}, err
	}
	if len(conflicts) > 0 && !force {
		return Report{}, &ConflictError{Paths: conflicts}
	}
	var rep Report
	if len(p.Files) == 0 {
		return rep, nil
	}
	abs := func(rel string) string { return filepath.Join(c.opts.Workspace, filepath.FromSlash(rel)) }
	loaded := map[string]bool{}
	if c.opts.Buffers != nil && c.opts.Files != nil {
		paths := make([]string, len(p.Files))
		for i, f := range p.Files {
			paths[i] = abs(f.Path)
		}
		if loaded, err = c.opts.Buffers.Loaded(ctx, paths); err != nil {
			return rep, fmt.Errorf("asking the editor which files are open: %w", err)
		}
	}
	var disk checkpoint.Plan
	var viaBuffer []checkpoint.FileRestore
	for _, f := range p.Files {
		rep.Files = append(rep.Files, f.Path)
		switch {
		case loaded[abs(f.Path)] && !f.Delete && f.Symlink == "":
			viaBuffer = append(viaBuffer, f)
		case loaded[abs(f.Path)] && f.Delete:
			rep.Open = append(rep.Open, f.Path)
			disk.Files = append(disk.Files, f)
		default:
			disk.Files = append(disk.Files, f)
		}
	}
	if err := checkpoint.ApplyToDisk(c.opts.Workspace, disk); err != nil {
		return Report{}, fmt.Errorf("nothing was restored: %w", err)
	}
	var failed []string
	for _, f := range viaBuffer {
		if err := c.opts.Files.WriteFile(ctx, abs(f.Path), f.Content); err != nil {
			failed = append(failed, fmt.Sprintf("%s (%v)", f.Path, err))
			continue
		}
		rep.Buffers = append(rep.Buffers, f.Path)
	}
	// The restored state is the agent's last known one now: the next
	// restore's conflicts are counted from here.
	_, _ = c.snapshot(context.WithoutCancel(ctx), thread, fmt.Sprintf("after rewind to message %d", n))
	sort.Strings(rep.Files)
	if len(failed) > 0 {
		return rep, errors.New("these open buffers could not be restored (their files on disk were not changed either): " + strings.Join(failed, "; "))
	}
	return rep, nil
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
