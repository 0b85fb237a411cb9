package gateway

import (
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// stderrKeep is how much of a stdio server's stderr is kept: enough for
// the message a server prints before it exits ("GITHUB_TOKEN not set").
const stderrKeep = 1000

// stderrTail keeps the end of what a server wrote to stderr, for the
// last error :Magenta mcp shows.
type stderrTail struct {
	mu   sync.Mutex
	buf  []byte
	w    *os.File      // the child's end; the parent's copy is closed after start
	done chan struct{} // closed when every writer has gone (EOF)
}

// newStderrTail returns a tail reading a pipe whose write end is the
// child's stderr. An *os.File is handed to the child as is, so the copy
// is ours to wait for (exec's own copying ends only in Wait, which the
// SDK may be running).
func newStderrTail() (*stderrTail, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	t := &stderrTail{w: w, done: make(chan struct{})}
	go func() {
		defer close(t.done)
		defer r.Close()
		_, _ = io.Copy(t, r)
	}()
	return t, nil
}

// started closes the parent's copy of the write end, so the reader sees
// EOF once the server (and what it started) is gone.
func (t *stderrTail) started() {
	if t != nil {
		_ = t.w.Close()
	}
}

func (t *stderrTail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - stderrKeep; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// text is the tail, trimmed, once the server's last words arrived
// (it was just killed, or it exited); "" for no tail.
func (t *stderrTail) text() string {
	if t == nil {
		return ""
	}
	select {
	case <-t.done:
	case <-time.After(time.Second):
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.buf))
}
