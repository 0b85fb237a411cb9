package threadstore

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/magenta-nvim/magenta/pkg/provider"
)

// Writer appends to one thread's log while holding its lock. Its
// methods are safe for concurrent use, though a thread calls them from
// its own goroutine only.
type Writer struct {
	store *Store
	mu    sync.Mutex
	f     *os.File // nil once closed
	sum   Summary
	// savedSize is the log size the summary file describes.
	savedSize int64
}

// summaryEvery is how much log may be written before the summary file
// is rewritten. Between rewrites List reads the log past the summary,
// so this bounds that read; rewriting per message would cost a file
// creation and a rename per message.
const summaryEvery = 64 << 10

// Create starts the log of a new thread with h (Version, Workspace and
// Created are filled in when zero) and keeps it open for writing.
func (s *Store) Create(h Header) (*Writer, error) {
	if err := checkID(h.ID); err != nil {
		return nil, err
	}
	if h.Version == 0 {
		h.Version = FormatVersion
	}
	if h.Workspace == "" {
		h.Workspace = s.workspace
	}
	if h.Created.IsZero() {
		h.Created = time.Now()
	}
	h.Created = h.Created.Round(time.Millisecond)
	f, err := os.OpenFile(s.logPath(h.ID), os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("thread store: %w", err)
	}
	if err := lock(f); err != nil {
		f.Close()
		return nil, err
	}
	w := &Writer{store: s, f: f, sum: Summary{ID: h.ID, Title: h.Title, ParentID: h.ParentID, Env: h.Env, Profile: h.Profile, Created: h.Created, LastActive: h.Created}}
	if err := w.append(record{Kind: kindHeader, Header: &h}, h.Created); err != nil {
		_ = unlockClose(f)
		_ = os.Remove(s.logPath(h.ID))
		return nil, err
	}
	return w, nil
}

// OpenWriter takes the lock of a saved thread and returns it with its
// content, read under the lock. It fails with ErrLocked when another
// Writer has it. A torn last line (a crash mid-write) is cut off, so the
// next record starts on a line of its own.
func (s *Store) OpenWriter(id string) (*Writer, *Thread, error) {
	if err := checkID(id); err != nil {
		return nil, nil, err
	}
	path := s.logPath(id)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, fmt.Errorf("%w %q", ErrNotFound, id)
	}
	if err != nil {
		return nil, nil, err
	}
	if err := lock(f); err != nil {
		f.Close()
		return nil, nil, err
	}
	data, err := io.ReadAll(io.NewSectionReader(f, 0, 1<<62))
	if err != nil {
		_ = unlockClose(f)
		return nil, nil, err
	}
	t, err := parse(data)
	if err == nil && t.Header.ID != id {
		err = fmt.Errorf("its header names thread %q", t.Header.ID)
	}
	if err != nil {
		_ = unlockClose(f)
		s.warnOnce(path, err)
		return nil, nil, fmt.Errorf("saved thread %s: %w", path, err)
	}
	if t.Size < int64(len(data)) {
		if err := f.Truncate(t.Size); err != nil {
			_ = unlockClose(f)
			return nil, nil, err
		}
	}
	w := &Writer{store: s, f: f, sum: t.Summary()}
	w.saveSummary()
	return w, t, nil
}

// Message appends a message as the thread's history got it, with what
// its display needs (the zero Display for most messages).
func (w *Writer) Message(m provider.Message, d Display) error {
	r := record{Kind: kindMessage, Message: &m}
	if d.Typed != nil || d.Tools != nil {
		r.Display = &d
	}
	return w.append(r, time.Now())
}

// Title records a new title.
func (w *Writer) Title(title string) error {
	return w.append(record{Kind: kindTitle, Title: &title}, time.Now())
}

// Profile records that the thread switched to another profile.
func (w *Writer) Profile(name string) error {
	return w.append(record{Kind: kindProfile, Profile: &name}, time.Now())
}

// Usage records the thread's usage so far (the last record wins).
func (w *Writer) Usage(u Usage) error {
	return w.append(record{Kind: kindUsage, Usage: &u}, time.Now())
}

// TurnUsage records what the turn that just ended used (the line drawn
// after it), in its place among the messages.
func (w *Writer) TurnUsage(u TurnUsage) error {
	return w.append(record{Kind: kindTurnUsage, Usage: &u.Usage, Requests: u.Requests}, time.Now())
}

// Todos records the thread's todo list as it is now.
func (w *Writer) Todos(items []Todo) error {
	if items == nil {
		items = []Todo{}
	}
	return w.append(record{Kind: kindTodos, Todos: &items}, time.Now())
}

// Compaction records that the history was replaced by a summary.
func (w *Writer) Compaction(c Compaction) error {
	return w.append(record{Kind: kindCompaction, Compact: &c}, time.Now())
}

// ID is the thread's id.
func (w *Writer) ID() string { return w.sum.ID }

// append writes r as one line with one write(2), then the summary. A
// failed write is cut off again, so the log never holds half a record
// followed by whole ones.
func (w *Writer) append(r record, at time.Time) error {
	if r.Kind != kindHeader {
		r.At = at.UnixMilli()
	}
	line, err := encode(r)
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return fmt.Errorf("thread store: %s is closed", w.sum.ID)
	}
	if n, err := w.f.Write(line); err != nil {
		if n > 0 {
			_ = w.f.Truncate(w.sum.Size)
		}
		return fmt.Errorf("thread store: %w", err)
	}
	w.sum.Size += int64(len(line))
	w.sum.LastActive = time.UnixMilli(at.UnixMilli())
	switch r.Kind {
	case kindMessage:
		w.sum.Messages++
	case kindTitle:
		w.sum.Title = *r.Title
	case kindProfile:
		w.sum.Profile = *r.Profile
	}
	if r.Kind == kindHeader || w.sum.Size-w.savedSize >= summaryEvery {
		w.saveSummary()
	}
	return nil
}

// saveSummary rewrites the summary file; a failure only makes List read
// more of the log.
func (w *Writer) saveSummary() {
	if w.store.writeSummary(w.sum) == nil {
		w.savedSize = w.sum.Size
	}
}

// Close releases the lock.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return nil
	}
	if w.sum.Size != w.savedSize {
		w.saveSummary()
	}
	err := unlockClose(w.f)
	w.f = nil
	return err
}
