package host

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities/memshell"
	"github.com/magenta-nvim/magenta/pkg/chat"
)

// fakeTermEditor records what the terminal windows send to Neovim.
type fakeTermEditor struct {
	mu    sync.Mutex
	sent  strings.Builder
	sends int
	gone  bool
}

func (f *fakeTermEditor) OpenTerminal(int, string) (int, int, error) { return 10, 40, nil }

func (f *fakeTermEditor) SendTerminal(_ int, data string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sent.WriteString(data)
	f.sends++
	return !f.gone, nil
}

func (f *fakeTermEditor) FocusTerminal(int) error { return nil }

func (f *fakeTermEditor) text() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sent.String()
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	require.Eventually(t, cond, 10*time.Second, 2*time.Millisecond, "timed out waiting for %s", what)
}

// blockingTerminal's Write blocks until released, like a PTY whose
// command does not read its input.
type blockingTerminal struct {
	*memshell.Terminal
	release chan struct{}
}

func (b blockingTerminal) Write(p []byte) (int, error) {
	<-b.release
	return b.Terminal.Write(p)
}

// Output keeps flowing to Neovim, in order, while a write to the command
// blocks, and the handlers never wait for either.
func TestTerminalWindowDirectionsAreIndependent(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ed := &fakeTermEditor{}
	var warns []string
	var wmu sync.Mutex
	ts := newTerminals(ctx, ed, func(s string) { wmu.Lock(); warns = append(warns, s); wmu.Unlock() })
	term := memshell.NewTerminal()
	term.Output([]byte("before "))
	bt := blockingTerminal{Terminal: term, release: make(chan struct{})}
	states := make(chan bool, 4)
	ts.Open(chat.TerminalRequest{Key: "k", Title: "x", Term: bt, Opened: func(open bool) { states <- open }})
	assert.True(t, <-states)
	eventually(t, "the replay", func() bool { return ed.text() == "before " })
	eventually(t, "the first size", func() bool { return len(term.Sizes()) == 1 })
	assert.Equal(t, [2]int{10, 40}, term.Sizes()[0])

	ts.Input(1, "typed") // the writer blocks on it
	for i := 0; i < 100; i++ {
		term.Output([]byte{'a' + byte(i%26)})
	}
	eventually(t, "the output", func() bool { return len(ed.text()) == len("before ")+100 })
	close(bt.release)
	eventually(t, "the write", func() bool { return term.Written() == "typed" })

	ts.Ended("k", "exited 0")
	eventually(t, "the exit line", func() bool { return strings.HasSuffix(ed.text(), "\r\n[exited 0]\r\n") })

	// A second Open of the same key focuses the window, no new one.
	ts.Open(chat.TerminalRequest{Key: "k", Term: bt})
	ts.Closed(1)
	assert.False(t, <-states)
	ts.Input(1, "late")
	ts.Resize(1, 5, 5)
	wmu.Lock()
	assert.Contains(t, strings.Join(warns, "\n"), "terminal 1 is not open")
	wmu.Unlock()
	cancel()
	ts.Wait()
}

// A window whose buffer is gone (send reports false) is closed.
func TestTerminalWindowGone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ed := &fakeTermEditor{gone: true}
	ts := newTerminals(ctx, ed, func(string) {})
	term := memshell.NewTerminal()
	term.Output([]byte("x"))
	states := make(chan bool, 2)
	ts.Open(chat.TerminalRequest{Key: "k", Term: term, Opened: func(open bool) { states <- open }})
	assert.True(t, <-states)
	assert.False(t, <-states)
	require.Nil(t, ts.window(1))
	cancel()
	ts.Wait()
}
