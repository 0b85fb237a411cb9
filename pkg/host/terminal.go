package host

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"

	"github.com/neovim/go-client/nvim"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/chat"
)

// Interactive commands' terminal windows (lua/magenta/terminal.lua): a
// Neovim terminal buffer made with nvim_open_term, fed with the raw PTY
// stream of a capabilities.Terminal, whose keystrokes and size go back to
// it. Only the Terminal interface is used, so any Shell's terminal (the
// local PTY, docker exec -t, memshell's scripted one) can be shown.
//
// Each window has two goroutines so neither direction waits for the
// other: the sender owns every RPC to Neovim for the window (open, the
// output batched into one nvim_chan_send per wake-up, the exit line,
// focus), and the writer calls Terminal.Write and Resize, which may block
// on a command that does not read its input. The RPC handlers and the
// Terminal's reader goroutine only append to the window's queues.

// terminalMaxRows and terminalMaxCols bound a size Neovim reports.
const (
	terminalMaxRows = 1000
	terminalMaxCols = 1000
)

// termEditor is what terminal windows need from Neovim.
type termEditor interface {
	// OpenTerminal makes the window of terminal id and returns its size.
	OpenTerminal(id int, title string) (rows, cols int, err error)
	// SendTerminal feeds data to the terminal buffer of id; false when
	// the buffer is gone.
	SendTerminal(id int, data string) (bool, error)
	// FocusTerminal moves the cursor to its window, in terminal mode.
	FocusTerminal(id int) error
}

// nvimTermEditor calls lua/magenta/terminal.lua.
type nvimTermEditor struct{ nv *nvim.Nvim }

var errNoEditor = errors.New("no editor connection")

func (e nvimTermEditor) OpenTerminal(id int, title string) (int, int, error) {
	if e.nv == nil {
		return 0, 0, errNoEditor
	}
	var size struct {
		Rows int `msgpack:"rows"`
		Cols int `msgpack:"cols"`
	}
	err := e.nv.ExecLua(`return require('magenta.terminal').open(...)`, &size, id, title)
	return size.Rows, size.Cols, err
}

func (e nvimTermEditor) SendTerminal(id int, data string) (bool, error) {
	if e.nv == nil {
		return false, errNoEditor
	}
	var ok bool
	err := e.nv.ExecLua(`return require('magenta.terminal').send(...)`, &ok, id, data)
	return ok, err
}

func (e nvimTermEditor) FocusTerminal(id int) error {
	if e.nv == nil {
		return errNoEditor
	}
	return e.nv.ExecLua(`require('magenta.terminal').focus(...)`, nil, id)
}

// terminals implements chat.Terminals. Safe for concurrent use; no
// method blocks on Neovim or on a command.
type terminals struct {
	ctx    context.Context
	editor termEditor
	warn   func(msg string)

	mu    sync.Mutex
	byID  map[int]*termWindow
	byKey map[string]*termWindow
	next  int
	wg    sync.WaitGroup
}

var _ chat.Terminals = (*terminals)(nil)

func newTerminals(ctx context.Context, editor termEditor, warn func(string)) *terminals {
	return &terminals{ctx: ctx, editor: editor, warn: warn, byID: map[int]*termWindow{}, byKey: map[string]*termWindow{}}
}

// termWindow is one open terminal window and its queues.
type termWindow struct {
	id     int
	key    string
	title  string
	term   capabilities.Terminal
	opened func(bool)

	mu      sync.Mutex
	out     []byte // output not yet sent to Neovim
	exit    string // the exit line to send, once
	focus   bool
	input   [][]byte
	size    [2]int // the size to apply; zero: none pending
	closed  bool
	cancel  func() // stops the Terminal's calls
	outWake chan struct{}
	inWake  chan struct{}
	once    sync.Once
}

func wake(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// Open implements chat.Terminals.
func (ts *terminals) Open(r chat.TerminalRequest) {
	ts.mu.Lock()
	if w := ts.byKey[r.Key]; w != nil {
		ts.mu.Unlock()
		w.mu.Lock()
		w.focus = true
		w.mu.Unlock()
		wake(w.outWake)
		return
	}
	ts.next++
	w := &termWindow{
		id: ts.next, key: r.Key, title: r.Title, term: r.Term, opened: r.Opened, exit: r.Exit,
		outWake: make(chan struct{}, 1), inWake: make(chan struct{}, 1),
	}
	if w.opened == nil {
		w.opened = func(bool) {}
	}
	ts.byID[w.id], ts.byKey[w.key] = w, w
	ts.wg.Add(2)
	ts.mu.Unlock()
	go ts.send(w)
	go ts.write(w)
}

// Ended implements chat.Terminals.
func (ts *terminals) Ended(key, exit string) {
	ts.mu.Lock()
	w := ts.byKey[key]
	ts.mu.Unlock()
	if w == nil {
		return
	}
	w.mu.Lock()
	w.exit = exit
	w.mu.Unlock()
	wake(w.outWake)
}

// Input queues keystrokes the user typed in the window of id. An id that
// names no open window (closed, or from a host that has restarted) gets
// one warning; input to a command that has ended is dropped.
func (ts *terminals) Input(id int, data string) {
	w := ts.window(id)
	if w == nil {
		ts.warn(fmt.Sprintf("terminal %d is not open (it was closed, or belongs to an earlier host): input dropped", id))
		return
	}
	if data == "" {
		return
	}
	w.mu.Lock()
	if !w.closed {
		w.input = append(w.input, []byte(data))
	}
	w.mu.Unlock()
	wake(w.inWake)
}

// Resize queues the window's new size for the PTY.
func (ts *terminals) Resize(id, rows, cols int) {
	w := ts.window(id)
	if w == nil {
		slog.Debug("resize of a terminal that is not open", "id", id)
		return
	}
	if rows <= 0 || cols <= 0 || rows > terminalMaxRows || cols > terminalMaxCols {
		ts.warn(fmt.Sprintf("terminal %d: size %dx%d ignored", id, rows, cols))
		return
	}
	w.mu.Lock()
	w.size = [2]int{rows, cols}
	w.mu.Unlock()
	wake(w.inWake)
}

// Closed forgets the window of id (its buffer was wiped).
func (ts *terminals) Closed(id int) {
	if w := ts.window(id); w != nil {
		ts.close(w)
	}
}

func (ts *terminals) window(id int) *termWindow {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.byID[id]
}

// close ends the window's goroutines and subscription, once; the sender
// then reports the window closed (it alone calls opened, so true and
// false arrive in order).
func (ts *terminals) close(w *termWindow) {
	w.once.Do(func() {
		ts.mu.Lock()
		delete(ts.byID, w.id)
		if ts.byKey[w.key] == w {
			delete(ts.byKey, w.key)
		}
		ts.mu.Unlock()
		w.mu.Lock()
		w.closed = true
		cancel := w.cancel
		w.out, w.input = nil, nil
		w.mu.Unlock()
		if cancel != nil {
			cancel()
		}
		wake(w.outWake)
		wake(w.inWake)
	})
}

// Wait waits for every window's goroutines after the host's context
// ended.
func (ts *terminals) Wait() { ts.wg.Wait() }

func (ts *terminals) recover(w *termWindow, where string) {
	if p := recover(); p != nil {
		slog.Error("terminal window panicked", "where", where, "panic", p, "stack", string(debug.Stack()))
		ts.warn(fmt.Sprintf("internal error in terminal %d (a bug; see the log): %v", w.id, p))
		ts.close(w)
	}
}

// send opens the window, subscribes to the terminal and feeds Neovim
// until the window closes.
func (ts *terminals) send(w *termWindow) {
	defer ts.wg.Done()
	defer ts.recover(w, "send")
	defer w.opened(false)
	rows, cols, err := ts.editor.OpenTerminal(w.id, w.title)
	if err != nil {
		ts.warn(fmt.Sprintf("could not open the terminal window: %v", err))
		ts.close(w)
		return
	}
	w.opened(true)
	ts.Resize(w.id, rows, cols)
	replay, cancel := w.term.Subscribe(func(chunk []byte) {
		w.mu.Lock()
		if !w.closed {
			w.out = append(w.out, chunk...)
		}
		w.mu.Unlock()
		wake(w.outWake)
	})
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		cancel()
		return
	}
	w.cancel = cancel
	// Chunks that arrived while subscribing came after the replay.
	w.out = append(replay, w.out...)
	w.mu.Unlock()
	for {
		w.mu.Lock()
		out, exit, focus, closed := w.out, w.exit, w.focus, w.closed
		w.out, w.exit, w.focus = nil, "", false
		w.mu.Unlock()
		if closed {
			return
		}
		data := string(out)
		if exit != "" {
			data += "\r\n[" + exit + "]\r\n"
		}
		if data != "" {
			ok, err := ts.editor.SendTerminal(w.id, data)
			if err != nil || !ok {
				if err != nil {
					slog.Warn("terminal send failed", "id", w.id, "err", err)
				}
				ts.close(w)
				return
			}
		}
		if focus {
			if err := ts.editor.FocusTerminal(w.id); err != nil {
				slog.Warn("terminal focus failed", "id", w.id, "err", err)
			}
		}
		select {
		case <-ts.ctx.Done():
			ts.close(w)
			return
		case <-w.outWake:
		}
	}
}

// write hands the user's keystrokes and the window's size to the
// terminal until the window closes.
func (ts *terminals) write(w *termWindow) {
	defer ts.wg.Done()
	defer ts.recover(w, "write")
	for {
		select {
		case <-ts.ctx.Done():
			return
		case <-w.inWake:
		}
		w.mu.Lock()
		input, size, closed := w.input, w.size, w.closed
		w.input, w.size = nil, [2]int{}
		w.mu.Unlock()
		if closed {
			return
		}
		if size[0] > 0 {
			if err := w.term.Resize(size[0], size[1]); err != nil && !errors.Is(err, capabilities.ErrTerminalClosed) {
				slog.Warn("terminal resize failed", "id", w.id, "err", err)
			}
		}
		for _, p := range input {
			if _, err := w.term.Write(p); err != nil {
				if !errors.Is(err, capabilities.ErrTerminalClosed) {
					slog.Warn("terminal write failed", "id", w.id, "err", err)
				}
				break // the command has ended: the rest has nowhere to go
			}
		}
	}
}
