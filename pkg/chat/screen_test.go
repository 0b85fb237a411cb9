package chat

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/magenta-nvim/magenta/pkg/chat/view"
)

// recordingScreen keeps the latest frame per key and lets a test wait on
// a condition over the shown frame.
type recordingScreen struct {
	mu      sync.Mutex
	changed chan struct{}
	frames  map[string]*view.Frame
	shown   string
	notes   []string
	// restored are the messages given back to the input buffer.
	restored []string
}

func (s *recordingScreen) RestoreInput(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.restored = append(s.restored, text)
	s.signal()
}

func newRecordingScreen() *recordingScreen {
	return &recordingScreen{changed: make(chan struct{}), frames: map[string]*view.Frame{}}
}

func (s *recordingScreen) signal() {
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *recordingScreen) Publish(key string, f *view.Frame) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.frames[key] = f
	s.signal()
}

func (s *recordingScreen) Show(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.shown = key
	s.signal()
}

func (s *recordingScreen) BindingAt(line int, key view.Key) (view.Action, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f := s.frames[s.shown]; f != nil {
		return f.BindingAt(line, key)
	}
	return view.Action{}, false
}

func (s *recordingScreen) Notify(msg string, _ Level) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.notes = append(s.notes, msg)
	s.signal()
}

func (s *recordingScreen) NotifyIfHidden(msg string) { s.Notify(msg, LevelInfo) }

func (s *recordingScreen) OpenFile(path string, line int) {
	s.Notify(fmt.Sprintf("open %s:%d", path, line), LevelInfo)
}

func (s *recordingScreen) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f := s.frames[s.shown]; f != nil {
		return strings.Join(f.Texts(), "\n")
	}
	return ""
}

// waitFor waits until cond holds for the shown text, failing after a
// deadline with the last text seen. It re-checks on every screen change
// and on a short tick, for conditions on state other than the screen
// (thread summaries are recorded after the frame that shows them).
func (s *recordingScreen) waitFor(t *testing.T, what string, cond func(text string) bool) string {
	t.Helper()
	deadline := time.After(30 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		s.mu.Lock()
		ch := s.changed
		s.mu.Unlock()
		if text := s.text(); cond(text) {
			return text
		}
		select {
		case <-ch:
		case <-tick.C:
		case <-deadline:
			t.Fatalf("timed out waiting for %s; display:\n%s", what, s.text())
		}
	}
}

func (s *recordingScreen) waitForText(t *testing.T, sub string) string {
	t.Helper()
	return s.waitFor(t, "text "+sub, func(text string) bool { return strings.Contains(text, sub) })
}

// lineOf returns the 0-based line of the first line containing sub.
func (s *recordingScreen) lineOf(t *testing.T, sub string) int {
	t.Helper()
	for i, l := range strings.Split(s.text(), "\n") {
		if strings.Contains(l, sub) {
			return i
		}
	}
	t.Fatalf("no line contains %q", sub)
	return -1
}
