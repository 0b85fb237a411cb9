package localshell

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/charmbracelet/x/vt"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

const (
	// ptyReadSize bounds one read of the PTY master.
	ptyReadSize = 64 << 10
	// emuFeedSize bounds one write to the emulator: lines scrolled off
	// are taken from its scrollback after each write, and a write of at
	// most this many bytes cannot scroll more lines than the scrollback
	// holds (vt.DefaultScrollbackSize), so none is lost.
	emuFeedSize = 4 << 10
)

// terminal is the capabilities.Terminal of one interactive command: the
// PTY master, a headless terminal emulator (github.com/charmbracelet/x/vt)
// that turns the raw stream into the text the model gets, and the raw
// stream's first TerminalRawMaxBytes for late subscribers.
//
// One goroutine (readLoop) reads the master, feeds the emulator and the
// subscribers, and hands the lines that became final (scrolled off the
// screen; the screen itself at the end) to the output processor. A
// second one copies the emulator's replies to terminal queries (cursor
// position, device attributes) back to the master: without it the
// emulator's Write would block on the first query.
type terminal struct {
	master *os.File
	start  time.Time
	// lastOutput is when the master last yielded bytes (UnixNano).
	lastOutput atomic.Int64
	// lastInput is when Write last sent keystrokes (UnixNano; 0: never).
	lastInput atomic.Int64
	closed    atomic.Bool
	copiers   sync.WaitGroup // reply copiers
	// drainUntil is set by cutShort (UnixNano): from then on each read
	// must come within drainTimeout of the previous one, and none after
	// it.
	drainUntil atomic.Int64
	done       chan struct{}

	mu  sync.Mutex // guards emu and tainted
	emu *vt.Emulator
	// tainted is set once the stream held a byte after which plain
	// lines may no longer bypass the emulator (see taints).
	tainted bool
	clamp   paramClamp
	// dropped counts the bytes left out of the emulator once draining
	// passed drainMax.
	dropped int64

	subMu sync.Mutex // guards raw, subs, ended
	raw   []byte
	subs  []*subscriber
	ended bool
}

type subscriber struct {
	fn  func([]byte)
	off atomic.Bool
}

var _ capabilities.Terminal = (*terminal)(nil)

func newTerminal(master *os.File, rows, cols int) *terminal {
	t := &terminal{master: master, start: time.Now(), done: make(chan struct{})}
	t.lastOutput.Store(t.start.UnixNano())
	t.newEmulator(rows, cols)
	return t
}

// newEmulator gives t a fresh emulator and its reply copier (t.mu held
// or t not shared yet).
func (t *terminal) newEmulator(rows, cols int) {
	t.emu = vt.NewEmulator(cols, rows)
	t.copiers.Add(1)
	go t.copyReplies(t.emu)
}

// stopReplies ends the reply copier of t.emu (t.mu held). Not
// emu.Close: it writes a field the copier reads unlocked.
func (t *terminal) stopReplies() {
	if pw, ok := t.emu.InputPipe().(*io.PipeWriter); ok {
		_ = pw.CloseWithError(io.EOF)
	}
}

// recoverEmulator, deferred with t.mu held, turns a panic of the
// emulator (a bug met on some output: the output is the command's, so
// untrusted) into a note in the text and a fresh, blank emulator, rather
// than a crashed host.
func (t *terminal) recoverEmulator(text *[]byte) {
	r := recover()
	if r == nil {
		return
	}
	*text = append(*text, fmt.Sprintf("[magenta: the terminal emulator failed (%v); it went on with a blank screen]\n", r)...)
	rows, cols := t.emu.Height(), t.emu.Width()
	t.stopReplies()
	t.newEmulator(rows, cols)
	t.tainted = true
}

// copyReplies sends emu's answers to the command. It keeps reading
// after a failed write (the command is gone): the emulator must never
// block on an unread reply. It ends when the reply pipe is closed.
func (t *terminal) copyReplies(emu *vt.Emulator) {
	defer t.copiers.Done()
	buf := make([]byte, 512)
	for {
		n, err := emu.Read(buf)
		if n > 0 && !t.closed.Load() {
			t.writeNoWait(buf[:n])
		}
		if err != nil {
			return
		}
	}
}

// writeNoWait writes p to the master as far as the PTY's input queue
// takes it now, and drops the rest. Replies to queries are the
// emulator's: a command that floods queries without reading its input
// must not block the copier, which would block the emulator and with it
// Screen.
func (t *terminal) writeNoWait(p []byte) {
	rc, err := t.master.SyscallConn()
	if err != nil {
		return
	}
	_ = rc.Write(func(fd uintptr) bool {
		for len(p) > 0 {
			n, err := syscall.Write(int(fd), p)
			if err == syscall.EINTR {
				continue
			}
			if err != nil || n <= 0 {
				return true // EAGAIN (queue full) or gone: drop
			}
			p = p[n:]
		}
		return true
	})
}

// readLoop reads the master until EOF (EIO once every slave descriptor
// is closed), an error, or the read deadline set to cut draining short.
// Final lines go to out as Stdout chunks, then the end of the stream.
//
// Reading and emulating run on two goroutines with up to rawQueue reads
// between them: a fast writer keeps writing while the emulator works
// (a PTY buffers only a few KB before the writer waits).
func (t *terminal) readLoop(out chan<- chunk) {
	reads := make(chan *[]byte, rawQueue)
	go t.readMaster(reads)
	for bp := range reads {
		if t.pastDrain() {
			t.dropped += int64(len(*bp))
		} else if text := t.feed(*bp); len(text) > 0 {
			out <- textChunk(text)
		}
		ptyBufPool.Put(bp)
	}
	if t.dropped > 0 {
		out <- textChunk(fmt.Appendf(nil, "[magenta: the last %d bytes of output were not put through the terminal emulator: it was still busy %s after the command ended]\n",
			t.dropped, drainMax))
	}
	if text := t.finalText(); len(text) > 0 {
		out <- textChunk(text)
	}
	out <- chunk{stream: capabilities.Stdout}
}

// rawQueue bounds the reads waiting for the emulator (at most
// rawQueue × ptyReadSize bytes).
const rawQueue = 16

var ptyBufPool = sync.Pool{New: func() any { b := make([]byte, ptyReadSize); return &b }}

// readMaster reads the master, keeps the replay, calls the subscribers
// and queues each read for the emulator; it closes reads at the end.
func (t *terminal) readMaster(reads chan<- *[]byte) {
	defer close(reads)
	for {
		bp := ptyBufPool.Get().(*[]byte)
		n, err := t.readAvailable((*bp)[:ptyReadSize])
		if n > 0 {
			now := time.Now()
			t.lastOutput.Store(now.UnixNano())
			if until := t.drainUntil.Load(); until != 0 {
				_ = t.master.SetReadDeadline(minTime(now.Add(drainTimeout), time.Unix(0, until)))
			}
			t.publish((*bp)[:n])
			*bp = (*bp)[:n]
			reads <- bp
		} else {
			ptyBufPool.Put(bp)
		}
		if err != nil {
			break
		}
	}
	t.subMu.Lock()
	t.ended = true
	t.subs = nil
	t.subMu.Unlock()
}

// cutShort stops reading once the output has been silent for
// drainTimeout (at once if it already has), and at the latest after
// drainMax. Unlike a pipe, a PTY holds back a writer until its output is
// read, and the emulator is slower than the pipe path's line splitter:
// when the command ends, what it wrote last may still take a while to
// go through, while a process out of reach that holds the slave open
// produces nothing.
func (t *terminal) cutShort() {
	now := time.Now()
	t.drainUntil.Store(now.Add(drainMax).UnixNano())
	last := time.Unix(0, t.lastOutput.Load())
	_ = t.master.SetReadDeadline(minTime(last.Add(drainTimeout), now.Add(drainMax)))
}

// pastDrain reports whether draining has gone on for drainMax: the
// emulator then takes no more (its work on hostile output, unbounded in
// the bytes, must not hold the call up).
func (t *terminal) pastDrain() bool {
	until := t.drainUntil.Load()
	return until != 0 && time.Now().UnixNano() > until
}

// drainMax bounds draining a terminal that keeps producing output after
// the command ended (a process out of reach, unsupervised).
const drainMax = 10 * time.Second

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func textChunk(text []byte) chunk {
	return chunk{stream: capabilities.Stdout, buf: &text, n: len(text)}
}

// readAvailable waits for output, then reads all there is, up to
// len(buf). A PTY master yields at most a few KB a read; each read has a
// fixed cost in the emulator path (see feedBulk), so a fast writer's
// output is taken in as few reads as possible. It honours the read
// deadline; the end of the slave (EIO) reads as io.EOF.
func (t *terminal) readAvailable(buf []byte) (int, error) {
	rc, err := t.master.SyscallConn()
	if err != nil {
		return 0, err
	}
	n := 0
	var rerr error
	err = rc.Read(func(fd uintptr) bool {
		for n < len(buf) {
			m, err := syscall.Read(int(fd), buf[n:])
			switch {
			case err == syscall.EAGAIN:
				return n > 0 // nothing yet: wait for the poller
			case err == syscall.EINTR:
				continue
			case err == syscall.EIO || (err == nil && m == 0):
				rerr = io.EOF
				return true
			case err != nil:
				rerr = err
				return true
			}
			n += m
		}
		return true
	})
	if n > 0 {
		return n, nil // an error comes back with the next call
	}
	if err != nil {
		return 0, err
	}
	return 0, rerr
}

// publish keeps p for the replay and hands it to the subscribers.
func (t *terminal) publish(p []byte) {
	t.subMu.Lock()
	if room := capabilities.TerminalRawMaxBytes - len(t.raw); room > 0 {
		t.raw = append(t.raw, p[:min(room, len(p))]...)
	}
	subs := t.subs
	t.subMu.Unlock()
	if len(subs) == 0 {
		return
	}
	c := append([]byte(nil), p...)
	for _, s := range subs {
		if !s.off.Load() {
			s.fn(c)
		}
	}
}

// feed writes p to the emulator and returns the lines it scrolled off
// the screen, each ending in '\n'. Plain lines that would only scroll
// through the screen bypass it (see feedBulk).
func (t *terminal) feed(p []byte) (text []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	defer t.recoverEmulator(&text)
	p = t.clamp.filter(p)
	// The first line completes the one the cursor is on: through the
	// emulator. The bytes after it are checked by feedBulk itself (they
	// bypass only when plain); those before must not taint.
	if !t.tainted && taints(p) {
		// Only a prefix of plain lines bypasses: what follows the
		// tainting byte goes through the emulator in any case.
		defer func() { t.tainted = true }()
	}
	if i := bytes.IndexByte(p, '\n'); i >= 0 && len(p)-i-1 >= bulkMinLines && !t.tainted && !taints(p[:i+1]) {
		text = t.write(p[:i+1], text)
		p, text, _ = t.feedBulk(p[i+1:], text)
	}
	return t.write(p, text)
}

// write feeds p to the emulator and appends the lines it scrolled off
// to text (t.mu held).
func (t *terminal) write(p, text []byte) []byte {
	for len(p) > 0 {
		if t.pastDrain() {
			t.dropped += int64(len(p))
			return text
		}
		n := min(len(p), emuFeedSize)
		_, _ = t.emu.Write(p[:n])
		p = p[n:]
		text = t.takeScrollback(text)
	}
	return text
}

// takeScrollback appends the scrollback's lines to text and empties it.
// t.mu is held.
func (t *terminal) takeScrollback(text []byte) []byte {
	sb := t.emu.Scrollback()
	if sb.Len() == 0 {
		return text
	}
	for _, l := range sb.Lines() {
		text = append(text, strings.TrimRight(l.String(), " ")...)
		text = append(text, '\n')
	}
	sb.Clear()
	return text
}

// finalText is what is left once the command ended: the scrollback not
// taken yet and the screen, trailing blank lines dropped.
func (t *terminal) finalText() (text []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	defer t.recoverEmulator(&text)
	text = t.takeScrollback(nil)
	for _, l := range t.screenLocked() {
		text = append(text, l...)
		text = append(text, '\n')
	}
	return text
}

// screenLocked returns the screen's lines; t.mu is held.
func (t *terminal) screenLocked() []string {
	lines := strings.Split(t.emu.String(), "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// close ends the terminal once readLoop has returned: the reply copier
// is stopped, the master closed, Done closed.
func (t *terminal) close() {
	t.closed.Store(true)
	t.mu.Lock()
	t.stopReplies()
	t.mu.Unlock()
	t.copiers.Wait()
	_ = t.master.Close()
	close(t.done)
}

// Subscribe implements capabilities.Terminal.
func (t *terminal) Subscribe(fn func(chunk []byte)) (replay []byte, cancel func()) {
	s := &subscriber{fn: fn}
	t.subMu.Lock()
	replay = append([]byte(nil), t.raw...)
	if !t.ended {
		t.subs = append(t.subs[:len(t.subs):len(t.subs)], s)
	}
	t.subMu.Unlock()
	return replay, func() {
		s.off.Store(true)
		t.subMu.Lock()
		for i, x := range t.subs {
			if x == s {
				t.subs = append(t.subs[:i:i], t.subs[i+1:]...)
				break
			}
		}
		t.subMu.Unlock()
	}
}

// Write implements capabilities.Terminal.
func (t *terminal) Write(p []byte) (int, error) {
	if t.closed.Load() {
		return 0, capabilities.ErrTerminalClosed
	}
	n, err := t.master.Write(p)
	if n > 0 {
		t.lastInput.Store(time.Now().UnixNano())
	}
	if err != nil && (errors.Is(err, os.ErrClosed) || t.closed.Load()) {
		err = capabilities.ErrTerminalClosed
	}
	return n, err
}

// LastInput implements capabilities.Terminal.
func (t *terminal) LastInput() time.Time {
	if n := t.lastInput.Load(); n != 0 {
		return time.Unix(0, n)
	}
	return time.Time{}
}

// Resize implements capabilities.Terminal.
func (t *terminal) Resize(rows, cols int) error {
	if rows <= 0 || cols <= 0 || rows > 0xffff || cols > 0xffff {
		return errors.New("terminal size out of range")
	}
	if t.closed.Load() {
		return capabilities.ErrTerminalClosed
	}
	// The emulator first: the command redraws for the new size as soon
	// as it gets SIGWINCH.
	t.resizeEmulator(rows, cols)
	if err := setSize(t.master, rows, cols); err != nil {
		if errors.Is(err, os.ErrClosed) || t.closed.Load() {
			return capabilities.ErrTerminalClosed
		}
		return err
	}
	return nil
}

func (t *terminal) resizeEmulator(rows, cols int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	defer t.recoverEmulator(new([]byte))
	t.emu.Resize(cols, rows)
}

// Screen implements capabilities.Terminal.
func (t *terminal) Screen() (lines []string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	defer t.recoverEmulator(new([]byte))
	return t.screenLocked()
}

// WaitingForInput implements capabilities.Terminal.
func (t *terminal) WaitingForInput() bool {
	if t.closed.Load() {
		return false
	}
	if time.Since(time.Unix(0, t.lastOutput.Load())) < capabilities.TerminalPromptSilence {
		return false
	}
	return looksLikePrompt(t.Screen())
}

// Done implements capabilities.Terminal.
func (t *terminal) Done() <-chan struct{} { return t.done }
