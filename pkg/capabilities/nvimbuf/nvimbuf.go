// Package nvimbuf is the buffer-aware FileIO: a path loaded in a Neovim
// buffer is read from the buffer, unsaved changes included, and written
// through the buffer and saved, so the user's undo history and cursor
// survive and their language servers see the change; other paths go to
// the disk FileIO it wraps. The user's editor is the truth, not the disk
// (gopls' overlay file system works the same way).
//
// A buffer is the truth only while it is not stale: before each read or
// write, magenta.files runs :checktime for the buffer and answers Neovim's
// question itself (no prompt): an unmodified buffer whose file changed on
// disk is reloaded first; a modified one is marked as a conflict, and
// writes and Updates fail with capabilities.ErrDiskChanged until the user
// writes or reloads it, so neither their changes nor the disk's are lost.
//
// Update holds a per-path lock in the host across read, change and write,
// and the write carries the buffer's changedtick from the read: when the
// user typed (or a reload happened) in between, nothing is written and the
// change is computed again from the new text. A buffer over the caller's
// cap is refused in Neovim, without its text crossing RPC.
//
// The user typing in the buffer (Insert or Replace mode there, or a
// command line opened from it) holds a write back:
// their line is half-typed, and writing the buffer would save it to disk;
// a change made during their insert would join its undo block; and a
// completion menu open on their line would complete at a position the
// change moved. So writes and Updates wait until the user leaves Insert
// mode, polling every InsertPoll, at most InsertWait (then they fail
// with ErrUserTyping and nothing is changed: the model is told to try
// again). An Update computes its change from the text as the user left
// it. Each write is an undo step of its own (magenta.files closes the
// undo block before and after it), so one `u` undoes exactly the edit.
// The other choice, changing the buffer at once and writing to disk only
// the model's change, would leave the buffer and the file differing in
// ways Neovim's :checktime takes for a conflict, and would still move
// text under an open completion menu.
//
// Open streams a buffer over OpenWholeMax in pieces of OpenChunkLines
// lines, each fetched when the caller has read the last, all checked
// against the changedtick Open saw (ErrBufferChanged rather than a mix of
// two versions): reading the first lines of a huge log open in a buffer
// copies those lines, not the log, and does not hold Neovim for seconds.
//
// A read carrying a judged path (capabilities.WithChecked, set by the
// permission decorator) takes a buffer only when it holds unsaved
// changes, without :checktime; an unmodified buffer is read from the
// disk FileIO, which opens the judged file and no other, so a file
// swapped for a symlink after the check cannot reach the model through a
// reload either.
//
// Buffer text is turned into file bytes the way Neovim would write it:
// lines joined by "\n" ("\r\n" for fileformat=dos), with a final newline
// when 'eol' or 'fixeol' is set (a file read without one is written with
// one under the default 'fixeol', so that is the buffer's truth); writes
// split the other way round.
package nvimbuf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/pathlock"
)

// updateAttempts bounds how often Update recomputes a change because the
// buffer changed under it (the user typing, a reload from disk).
const updateAttempts = 5

// InsertWait is how long a write waits for the user to leave Insert mode
// in the file's buffer before it fails with ErrUserTyping; InsertPoll is
// how often it asks Neovim meanwhile (one RPC round trip, ~0.3 ms).
const (
	InsertWait = time.Minute
	InsertPoll = 100 * time.Millisecond
)

// ErrUserTyping: the user stayed in Insert mode in the file's buffer for
// longer than the write waits; nothing was changed.
var ErrUserTyping = errors.New("the user is typing in this file in the editor")

// locks serialises the host's changes of one path: Update reads the
// buffer, computes in Go, then writes, and no other change of the path
// from this process may land in between. Shared by every FS on purpose:
// two threads' environments edit the same buffers.
var locks pathlock.Table

// Lua is the part of the RPC client this package uses (*nvim.Nvim).
type Lua interface {
	ExecLua(code string, result any, args ...any) error
}

// FS implements capabilities.FileIO over Neovim's buffers and disk.
type FS struct {
	nv   Lua
	disk capabilities.FileIO
	// insertWait bounds the wait for the user to leave Insert mode.
	insertWait time.Duration
}

var _ capabilities.FileIO = (*FS)(nil)

// New returns a buffer-aware FileIO falling back to disk.
func New(nv Lua, disk capabilities.FileIO) *FS {
	return &FS{nv: nv, disk: disk, insertWait: InsertWait}
}

// WithInsertWait returns a copy of f that waits at most d for the user
// to leave Insert mode (tests use a short one).
func (f *FS) WithInsertWait(d time.Duration) *FS {
	c := *f
	c.insertWait = d
	return &c
}

// bufferText is what magenta.files.read returns. Lines, EOL and DOS are
// absent when the text is over the limit asked for.
type bufferText struct {
	Loaded   bool  `msgpack:"loaded"`
	Size     int64 `msgpack:"size"`
	Modified bool  `msgpack:"modified"`
	Conflict bool  `msgpack:"conflict"`
	Tick     int64 `msgpack:"tick"`
	// Inserting: the user is typing in the buffer (Insert mode there).
	Inserting bool     `msgpack:"inserting"`
	Lines     []string `msgpack:"lines"`
	EOL       bool     `msgpack:"eol"`
	DOS       bool     `msgpack:"dos"`
}

func (b bufferText) content() []byte {
	sep := "\n"
	if b.DOS {
		sep = "\r\n"
	}
	s := strings.Join(b.Lines, sep)
	if b.EOL {
		s += sep
	}
	return []byte(s)
}

// writeResult is what magenta.files.write returns.
type writeResult struct {
	Loaded   bool `msgpack:"loaded"`
	Conflict bool `msgpack:"conflict"`
	Stale    bool `msgpack:"stale"`
	// Inserting: nothing was changed because the user is typing in the
	// buffer.
	Inserting bool `msgpack:"inserting"`
}

// buffer reads path's buffer (reloading it first if it is unmodified and
// the disk changed); maxBytes < 0 means no limit.
func (f *FS) buffer(ctx context.Context, path string, maxBytes int64) (bufferText, error) {
	if err := ctx.Err(); err != nil {
		return bufferText{}, err
	}
	var limit any
	if maxBytes >= 0 {
		limit = maxBytes
	}
	// A read a permission decorator judged (capabilities.Checked) must
	// not let Neovim reload the buffer from a file swapped since: Lua
	// then answers an unmodified buffer as not loaded, and the disk
	// FileIO reads the judged file.
	_, checked := capabilities.CheckedFrom(ctx)
	var b bufferText
	if err := f.nv.ExecLua(`return require('magenta.files').read(...)`, &b, path, limit, checked); err != nil {
		return bufferText{}, fmt.Errorf("read buffer %s: %w", path, err)
	}
	return b, nil
}

// Open implements capabilities.FileIO. A buffer up to OpenWholeMax
// bytes crosses RPC in one piece; a larger one is streamed in pieces of
// OpenChunkLines lines as the caller reads, so get_file of the first
// lines of a huge log open in a buffer copies those lines, not the log.
func (f *FS) Open(ctx context.Context, path string) (io.ReadCloser, error) {
	b, err := f.buffer(ctx, path, OpenWholeMax)
	if err != nil {
		return nil, err
	}
	switch {
	case !b.Loaded:
		return f.disk.Open(ctx, path)
	case b.Lines != nil:
		return io.NopCloser(bytes.NewReader(b.content())), nil
	}
	return &chunkReader{ctx: ctx, f: f, path: path, tick: b.Tick}, nil
}

// ReadFile implements capabilities.FileIO.
func (f *FS) ReadFile(ctx context.Context, path string) ([]byte, error) {
	b, err := f.buffer(ctx, path, -1)
	if err != nil {
		return nil, err
	}
	if b.Loaded {
		return b.content(), nil
	}
	return f.disk.ReadFile(ctx, path)
}

// WriteFile implements capabilities.FileIO: a loaded buffer is changed in
// place (one undo step, only the lines that differ) and saved, unless the
// user's unsaved changes and the disk both changed (ErrDiskChanged). It
// waits while the user is typing in the buffer (ErrUserTyping after
// InsertWait).
func (f *FS) WriteFile(ctx context.Context, path string, data []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	unlock, err := locks.Lock(ctx, path)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer unlock()
	deadline := time.Now().Add(f.insertWait)
	for {
		res, err := f.write(path, data, nil)
		switch {
		case err != nil:
			return err
		case res.Inserting:
			if err := f.waitInsertLeave(ctx, path, deadline); err != nil {
				return fmt.Errorf("write %s: %w", path, err)
			}
		case res.Loaded:
			return nil
		default:
			return f.disk.WriteFile(ctx, path, data)
		}
	}
}

// Update implements capabilities.FileIO. For a loaded buffer the text is
// read, changed and written back only if the buffer did not change in
// between (its changedtick); otherwise the change is computed again from
// the new text. While the user is typing in the buffer it waits, and
// computes the change from the text they leave (ErrUserTyping after
// InsertWait).
func (f *FS) Update(ctx context.Context, path string, maxBytes int64, change func(old []byte) ([]byte, error)) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	unlock, err := locks.Lock(ctx, path)
	if err != nil {
		return fmt.Errorf("update %s: %w", path, err)
	}
	defer unlock()
	deadline := time.Now().Add(f.insertWait)
	for attempt := 0; attempt < updateAttempts; {
		b, err := f.buffer(ctx, path, maxBytes)
		switch {
		case err != nil:
			return err
		case b.Loaded && b.Inserting:
			// Not an attempt: nothing was computed yet.
			if err := f.waitInsertLeave(ctx, path, deadline); err != nil {
				return fmt.Errorf("update %s: %w", path, err)
			}
			continue
		case !b.Loaded:
			return f.disk.Update(ctx, path, maxBytes, change)
		case b.Size > maxBytes:
			return fmt.Errorf("update %s: %w", path, &capabilities.TooLargeError{Size: b.Size, Max: maxBytes})
		case b.Conflict:
			return fmt.Errorf("update %s: %w", path, capabilities.ErrDiskChanged)
		}
		data, err := change(b.content())
		if err != nil {
			return fmt.Errorf("update %s: %w", path, err)
		}
		res, err := f.write(path, data, b.Tick)
		switch {
		case err != nil:
			return err
		case !res.Loaded:
			// The user closed the buffer meanwhile: its text, changed, is
			// what they last saw.
			return f.disk.WriteFile(ctx, path, data)
		case res.Inserting:
			// They started typing after the read: wait, then compute the
			// change again from the text they leave.
			if err := f.waitInsertLeave(ctx, path, deadline); err != nil {
				return fmt.Errorf("update %s: %w", path, err)
			}
			continue
		case !res.Stale:
			return nil
		}
		attempt++
	}
	return fmt.Errorf("update %s: the buffer kept changing while being edited; try again", path)
}

// waitInsertLeave returns once the user is no longer in Insert mode in
// path's buffer, polling every InsertPoll; past deadline it fails with
// ErrUserTyping. The first poll tells the user that an edit waits for
// them. Neovim answers between two keys the user types, so a poll never
// blocks their typing.
func (f *FS) waitInsertLeave(ctx context.Context, path string, deadline time.Time) error {
	tick := time.NewTicker(InsertPoll)
	defer tick.Stop()
	for first := true; ; first = false {
		var inserting bool
		if err := f.nv.ExecLua(`return require('magenta.files').inserting(...)`, &inserting, path, first); err != nil {
			return fmt.Errorf("ask whether the user is typing: %w", err)
		}
		if !inserting {
			return nil
		}
		if !time.Now().Before(deadline) {
			return fmt.Errorf("%w and stayed in Insert mode for %v; nothing was changed, try again later", ErrUserTyping, f.insertWait)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// write sends data to path's buffer; tick, when not nil, is the
// changedtick data was computed from.
func (f *FS) write(path string, data []byte, tick any) (writeResult, error) {
	lines, eol, dos := splitContent(data)
	var res writeResult
	if err := f.nv.ExecLua(`return require('magenta.files').write(...)`, &res, path, lines, eol, dos, tick); err != nil {
		return res, fmt.Errorf("write buffer %s: %w", path, err)
	}
	if res.Conflict {
		return res, fmt.Errorf("write %s: %w", path, capabilities.ErrDiskChanged)
	}
	return res, nil
}

// splitContent turns file bytes into buffer lines.
func splitContent(data []byte) (lines []string, eol, dos bool) {
	s := string(data)
	dos = strings.Contains(s, "\r\n")
	if dos {
		s = strings.ReplaceAll(s, "\r\n", "\n")
	}
	eol = strings.HasSuffix(s, "\n")
	s = strings.TrimSuffix(s, "\n")
	return strings.Split(s, "\n"), eol, dos
}

// Stat implements capabilities.FileIO; a loaded buffer's size is its
// text's, computed in Neovim without copying the text.
func (f *FS) Stat(ctx context.Context, path string) (capabilities.FileInfo, error) {
	b, err := f.buffer(ctx, path, 0)
	if err != nil {
		return capabilities.FileInfo{}, err
	}
	info, err := f.disk.Stat(ctx, path)
	if b.Loaded {
		info.Size, info.IsDir = b.Size, false
		return info, nil
	}
	return info, err
}

// Exists implements capabilities.FileIO; a loaded buffer exists.
func (f *FS) Exists(ctx context.Context, path string) (bool, error) {
	b, err := f.buffer(ctx, path, 0)
	if err != nil {
		return false, err
	}
	if b.Loaded {
		return true, nil
	}
	return f.disk.Exists(ctx, path)
}

// MkdirAll implements capabilities.FileIO (directories are the disk's).
func (f *FS) MkdirAll(ctx context.Context, path string) error {
	return f.disk.MkdirAll(ctx, path)
}
