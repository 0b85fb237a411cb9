package threadstore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/magenta-nvim/magenta/pkg/provider"
)

// Message is a message as the thread appended it to its history, with
// what rebuilding its display needs.
type Message struct {
	provider.Message
	Display Display
}

// Thread is a saved thread read back.
type Thread struct {
	// Header is the first record; its Title and Profile are the latest
	// ones the log records.
	Header   Header
	Title    string
	Messages []Message
	// Compactions are the points where the history was replaced, in
	// order; each applies after the first After messages.
	Compactions []SavedCompaction
	// TurnUsages are the usage lines drawn after turns, in order
	// (none in logs written before they were saved).
	TurnUsages []SavedTurnUsage
	Usage      Usage
	// Todos is the todo list as last saved (nil: none).
	Todos []Todo
	// LastActive is when the last record was written.
	LastActive time.Time
	// Size is the length of the log up to its last complete line.
	Size int64
}

// SavedCompaction is a compaction read back, with its place among the
// thread's messages.
type SavedCompaction struct {
	// After is how many of Thread.Messages came before it.
	After int
	Compaction
}

// SavedTurnUsage is a turn's usage read back, with its place: after the
// first After of Thread.Messages and the first Compactions of
// Thread.Compactions.
type SavedTurnUsage struct {
	After, Compactions int
	TurnUsage
}

// Summary is what the thread list shows of a saved thread.
type Summary struct {
	ID         string    `json:"id"`
	Title      string    `json:"title,omitempty"`
	ParentID   string    `json:"parent,omitempty"`
	Env        Env       `json:"env"`
	Profile    string    `json:"profile,omitempty"`
	Created    time.Time `json:"created"`
	LastActive time.Time `json:"active"`
	Messages   int       `json:"messages"`
	// Size is the log length this summary describes; a summary whose
	// size differs from its log's is stale and rebuilt.
	Size int64 `json:"size"`
}

// Summary returns the thread's summary.
func (t *Thread) Summary() Summary {
	return Summary{
		ID: t.Header.ID, Title: t.Title, ParentID: t.Header.ParentID, Env: t.Header.Env, Profile: t.Header.Profile,
		Created: t.Header.Created, LastActive: t.LastActive, Messages: len(t.Messages), Size: t.Size,
	}
}

// Load reads a saved thread. A torn last line is ignored; a file whose
// header is missing or unreadable, or with a broken line before the
// last, is corrupt: the error says so, and the store warns once.
func (s *Store) Load(id string) (*Thread, error) {
	if err := checkID(id); err != nil {
		return nil, err
	}
	path := s.logPath(id)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w %q", ErrNotFound, id)
	}
	if err != nil {
		return nil, err
	}
	t, err := parse(data)
	if err != nil {
		s.warnOnce(path, err)
		return nil, fmt.Errorf("saved thread %s: %w", path, err)
	}
	if t.Header.ID != id {
		err := fmt.Errorf("its header names thread %q", t.Header.ID)
		s.warnOnce(path, err)
		return nil, fmt.Errorf("saved thread %s: %w", path, err)
	}
	return t, nil
}

// parse reads a log. It never panics on bad input.
func parse(data []byte) (*Thread, error) {
	complete := bytes.LastIndexByte(data, '\n') + 1 // a torn last line is not read
	t := &Thread{Size: int64(complete)}
	rest := data[:complete]
	for n := 1; len(rest) > 0; n++ {
		i := bytes.IndexByte(rest, '\n')
		line := rest[:i]
		rest = rest[i+1:]
		r, err := decode(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", n, err)
		}
		if n == 1 {
			if r.Kind != kindHeader || r.Header == nil || r.Header.ID == "" {
				return nil, fmt.Errorf("line 1 is not a thread header")
			}
			t.Header = *r.Header
			t.Title = r.Header.Title
			t.LastActive = r.Header.Created
			continue
		}
		if r.At > 0 {
			t.LastActive = time.UnixMilli(r.At)
		}
		switch r.Kind {
		case kindMessage:
			if r.Message == nil {
				return nil, fmt.Errorf("line %d: message record without a message", n)
			}
			if r.Message.Role != provider.RoleUser && r.Message.Role != provider.RoleAssistant {
				return nil, fmt.Errorf("line %d: unknown role %q", n, r.Message.Role)
			}
			m := Message{Message: *r.Message}
			if r.Display != nil {
				m.Display = *r.Display
			}
			t.Messages = append(t.Messages, m)
		case kindCompaction:
			if r.Compact == nil {
				return nil, fmt.Errorf("line %d: compaction record without its history", n)
			}
			for _, m := range r.Compact.History {
				if m.Role != provider.RoleUser && m.Role != provider.RoleAssistant {
					return nil, fmt.Errorf("line %d: unknown role %q in a compacted history", n, m.Role)
				}
			}
			t.Compactions = append(t.Compactions, SavedCompaction{After: len(t.Messages), Compaction: *r.Compact})
		case kindTitle:
			if r.Title != nil {
				t.Title = *r.Title
			}
		case kindUsage:
			if r.Usage != nil {
				t.Usage = *r.Usage
			}
		case kindTurnUsage:
			if r.Usage != nil {
				t.TurnUsages = append(t.TurnUsages, SavedTurnUsage{After: len(t.Messages), Compactions: len(t.Compactions),
					TurnUsage: TurnUsage{Usage: *r.Usage, Requests: r.Requests}})
			}
		case kindProfile:
			if r.Profile != nil {
				t.Header.Profile = *r.Profile
			}
		case kindTodos:
			if r.Todos != nil {
				t.Todos = *r.Todos
			}
		}
		// Other kinds come from newer versions: skipped.
	}
	if t.Header.ID == "" {
		return nil, fmt.Errorf("the file is empty or cut inside its header")
	}
	return t, nil
}

// listWorkers is how many goroutines List reads summaries with.
const listWorkers = 4

// List returns the summaries of the saved threads, most recently active
// first. It reads each thread's small summary file and only the part of
// the log written since (the writer rewrites the summary now and then,
// not per message); the whole log only when the summary is missing or
// does not fit it. Bad files are skipped with one warning each.
func (s *Store) List() []Summary {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return nil
	}
	var logs []os.DirEntry
	for _, e := range entries {
		if id, ok := strings.CutSuffix(e.Name(), logExt); ok && checkID(id) == nil {
			logs = append(logs, e)
		}
	}
	// The time goes to open(2) and read(2) of small files: a few
	// goroutines overlap them.
	sums := make([]Summary, len(logs))
	found := make([]bool, len(logs))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(listWorkers, len(logs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(logs); i = int(next.Add(1) - 1) {
				info, err := logs[i].Info()
				if err == nil {
					sums[i], found[i] = s.summaryOf(strings.TrimSuffix(logs[i].Name(), logExt), info.Size())
				}
			}
		}()
	}
	wg.Wait()
	out := make([]Summary, 0, len(logs))
	for i, ok := range found {
		if ok {
			out = append(out, sums[i])
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].LastActive.Equal(out[j].LastActive) {
			return out[i].LastActive.After(out[j].LastActive)
		}
		return out[i].ID > out[j].ID
	})
	return out
}

// summaryOf is the summary of thread id brought up to date with its log
// of size bytes (as listed); the log is opened only when the summary is
// behind it.
func (s *Store) summaryOf(id string, size int64) (Summary, bool) {
	if sum, ok := s.readSummary(id); ok && sum.Size <= size {
		if sum.Size == size {
			return sum, true
		}
		if s.readTail(id, &sum) {
			return sum, true
		}
	}
	t, err := s.Load(id)
	if err != nil {
		return Summary{}, false
	}
	sum := t.Summary()
	if sum.Size == size {
		_ = s.writeSummary(sum) // best effort: the next list is fast again
	}
	return sum, true
}

// readTail brings sum up to date with the log written after sum.Size.
func (s *Store) readTail(id string, sum *Summary) bool {
	f, err := os.Open(s.logPath(id))
	if err != nil {
		return false
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || info.Size() < sum.Size {
		return false
	}
	tail := make([]byte, info.Size()-sum.Size)
	if _, err := f.ReadAt(tail, sum.Size); err != nil {
		return false
	}
	return applyTail(sum, tail) == nil
}

// applyTail updates sum with the complete records of tail, the part of
// the log after sum.Size.
func applyTail(sum *Summary, tail []byte) error {
	tail = tail[:bytes.LastIndexByte(tail, '\n')+1]
	for rest := tail; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		r, err := decode(rest[:i])
		rest = rest[i+1:]
		if err != nil {
			return err
		}
		if r.At > 0 {
			sum.LastActive = time.UnixMilli(r.At)
		}
		switch {
		case r.Kind == kindMessage:
			sum.Messages++
		case r.Kind == kindTitle && r.Title != nil:
			sum.Title = *r.Title
		case r.Kind == kindProfile && r.Profile != nil:
			sum.Profile = *r.Profile
		}
	}
	sum.Size += int64(len(tail))
	return nil
}

// readSummary returns the summary file of id. A summary is a few
// hundred bytes: one read into a buffer, no stat.
func (s *Store) readSummary(id string) (Summary, bool) {
	f, err := os.Open(s.summaryPath(id))
	if err != nil {
		return Summary{}, false
	}
	var buf [2048]byte
	n, err := io.ReadFull(f, buf[:])
	var data []byte
	switch err {
	case io.ErrUnexpectedEOF, io.EOF:
		data = buf[:n]
	case nil: // a long title: read the rest
		rest, err := io.ReadAll(f)
		if err != nil {
			f.Close()
			return Summary{}, false
		}
		data = append(buf[:n:n], rest...)
	default:
		f.Close()
		return Summary{}, false
	}
	f.Close()
	var sum Summary
	if json.Unmarshal(data, &sum) != nil || sum.ID != id {
		return Summary{}, false
	}
	return sum, true
}

// writeSummary replaces a summary atomically (temp file + rename), so a
// reader sees the old or the new one, never half of one.
func (s *Store) writeSummary(sum Summary) error {
	data, err := json.Marshal(sum)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(s.dir, "."+sum.ID+".sum-*")
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), s.summaryPath(sum.ID)); err != nil {
		_ = os.Remove(f.Name())
		return err
	}
	return nil
}
