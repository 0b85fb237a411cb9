package memshell

import (
	"strings"
	"sync"
	"time"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// Terminal is a scripted capabilities.Terminal for tests of what sits
// above the Shell (the chat, the editor's terminal window): the test
// plays the command's side — Output, SetScreen, SetWaiting, Exit — and
// reads what the user's side did — Written, Sizes. Input is echoed to
// the output, as a terminal in cooked mode does. Safe for concurrent
// use.
type Terminal struct {
	mu      sync.Mutex
	raw     []byte
	subs    map[int]func([]byte)
	nextSub int
	written []byte
	// lastInput is when Write was last called.
	lastInput time.Time
	sizes     [][2]int
	screen    []string
	waiting   bool
	code      int
	ended     bool
	done      chan struct{}
	exited    chan struct{} // closed by Exit: Execute returns
}

var _ capabilities.Terminal = (*Terminal)(nil)

// NewTerminal returns a running terminal with an empty screen.
func NewTerminal() *Terminal {
	return &Terminal{subs: map[int]func([]byte){}, done: make(chan struct{}), exited: make(chan struct{})}
}

// Output plays raw output of the command: kept for the replay (bounded
// like a real one, by capabilities.TerminalRawMaxBytes) and passed to
// every subscriber. Nothing happens once the command ended.
func (t *Terminal) Output(p []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.outputLocked(p)
}

func (t *Terminal) outputLocked(p []byte) {
	if t.ended {
		return
	}
	if room := capabilities.TerminalRawMaxBytes - len(t.raw); room > 0 {
		t.raw = append(t.raw, p[:min(room, len(p))]...)
	}
	chunk := append([]byte(nil), p...)
	// Called under the lock, as a real reader goroutine calls them one
	// at a time and in order; they must not block (the contract).
	for _, fn := range t.subs {
		fn(chunk)
	}
}

// SetScreen sets what Screen returns.
func (t *Terminal) SetScreen(lines ...string) {
	t.mu.Lock()
	t.screen = append([]string(nil), lines...)
	t.mu.Unlock()
}

// SetWaiting sets what WaitingForInput returns.
func (t *Terminal) SetWaiting(v bool) {
	t.mu.Lock()
	t.waiting = v
	t.mu.Unlock()
}

// Exit ends the command with code: Done is closed, later writes fail,
// and the Execute playing it returns.
func (t *Terminal) Exit(code int) {
	t.mu.Lock()
	if !t.ended {
		t.code = code
		t.end()
		close(t.exited)
	}
	t.mu.Unlock()
}

// end marks the command ended (t.mu held).
func (t *Terminal) end() {
	t.ended = true
	t.subs = map[int]func([]byte){}
	close(t.done)
}

// Written returns every byte written to the terminal so far.
func (t *Terminal) Written() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.written)
}

// Sizes returns every Resize so far as {rows, cols}, oldest first.
func (t *Terminal) Sizes() [][2]int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([][2]int(nil), t.sizes...)
}

// Subscribe implements capabilities.Terminal.
func (t *Terminal) Subscribe(fn func([]byte)) ([]byte, func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	replay := append([]byte(nil), t.raw...)
	if t.ended {
		return replay, func() {}
	}
	id := t.nextSub
	t.nextSub++
	t.subs[id] = fn
	return replay, func() {
		t.mu.Lock()
		delete(t.subs, id)
		t.mu.Unlock()
	}
}

// Write implements capabilities.Terminal: it records p and echoes it
// ("\r" echoes as "\r\n").
func (t *Terminal) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ended {
		return 0, capabilities.ErrTerminalClosed
	}
	t.written = append(t.written, p...)
	t.lastInput = time.Now()
	t.outputLocked([]byte(strings.ReplaceAll(string(p), "\r", "\r\n")))
	return len(p), nil
}

// LastInput implements capabilities.Terminal.
func (t *Terminal) LastInput() time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.lastInput
}

// Resize implements capabilities.Terminal.
func (t *Terminal) Resize(rows, cols int) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ended {
		return capabilities.ErrTerminalClosed
	}
	t.sizes = append(t.sizes, [2]int{rows, cols})
	return nil
}

// Screen implements capabilities.Terminal.
func (t *Terminal) Screen() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.screen...)
}

// WaitingForInput implements capabilities.Terminal.
func (t *Terminal) WaitingForInput() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.waiting
}

// Done implements capabilities.Terminal.
func (t *Terminal) Done() <-chan struct{} { return t.done }

// stop ends the command from outside (cancel, timeout) and reports
// whether it seemed to wait for input then.
func (t *Terminal) stop() (waiting bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	waiting = t.waiting
	if !t.ended {
		t.end()
	}
	return waiting
}

func (t *Terminal) exitCode() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.code
}
