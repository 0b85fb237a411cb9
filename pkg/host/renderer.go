package host

import (
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"github.com/magenta-nvim/magenta/pkg/chat"
	"github.com/magenta-nvim/magenta/pkg/chat/view"
)

// FrameInterval is the shortest time between two applied frames: streamed
// deltas arriving faster are coalesced into one buffer update.
const FrameInterval = 30 * time.Millisecond

// Editor is what the renderer needs from Neovim. The real one calls Lua
// over RPC; tests and benchmarks may record instead.
type Editor interface {
	// ApplyEdit replaces lines [start, end) of buf (end -1: to the end)
	// and tells the buffer that it now shows frame number seq (keys
	// pressed there name it).
	ApplyEdit(buf int, e view.Edit, seq int) error
	// CheckDisplay returns an error unless buf is a display buffer the
	// sidebar created (b:magenta_role = "display").
	CheckDisplay(buf int) error
	Notify(msg string, level chat.Level) error
	// NotifyIfHidden notifies unless buf is shown in a window.
	NotifyIfHidden(buf int, msg string) error
	// OpenFile opens path in a window outside the sidebar, at line when
	// positive.
	OpenFile(path string, line int) error
	// RestoreInput puts text back into the input buffer (above what the
	// user typed since).
	RestoreInput(text string) error
}

// Renderer implements chat.Screen. Its methods are safe for concurrent use
// and never block on Neovim: the RPC happens on the renderer goroutine.
type Renderer struct {
	editor Editor

	mu      sync.Mutex
	frames  map[string]*view.Frame
	shown   string
	buf     int
	applied *view.Frame // what buf shows now; nil when unknown
	appKey  string
	appBuf  int
	// seq numbers the frames sent to the buffer; recent keeps the last
	// few by number, so a key resolves against the frame the user saw
	// even when a newer one was sent meanwhile (or the renderer has not
	// yet recorded the one Neovim already shows).
	seq    int
	recent [recentFrames]struct {
		seq   int
		frame *view.Frame
	}
	notes []note
	wake  chan struct{}
	stop  chan struct{}
	done  chan struct{}
	// drawn is closed once the app's first frame is in a buffer: start-up work
	// that can wait (sandbox detection) waits for it, so it does not
	// compete with the first toggle.
	drawn     chan struct{}
	drawnOnce sync.Once
}

// recentFrames is how many sent frames BindingOnFrame can still name.
const recentFrames = 8

// Drawn is closed once the app's first frame has been applied (not
// chat.PendingFrame, shown while the app is built).
func (r *Renderer) Drawn() <-chan struct{} { return r.drawn }

// note is a side effect queued for the renderer goroutine: a
// notification, or a file to open.
type note struct {
	msg     string
	level   chat.Level
	hidden  bool   // only when the display buffer is not shown
	open    string // a path to open instead of a message
	line    int
	restore string // a message to put back into the input buffer
}

// NewRenderer starts a renderer applying frames through editor.
func NewRenderer(editor Editor) *Renderer {
	r := &Renderer{
		editor: editor, frames: map[string]*view.Frame{},
		wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}), drawn: make(chan struct{}),
	}
	go r.run()
	return r
}

// Publish stores f as the latest frame for key.
func (r *Renderer) Publish(key string, f *view.Frame) {
	r.mu.Lock()
	r.frames[key] = f
	shown := key == r.shown
	r.mu.Unlock()
	if shown {
		r.poke()
	}
}

// Show selects the key the display buffer shows.
func (r *Renderer) Show(key string) {
	r.mu.Lock()
	r.shown = key
	r.mu.Unlock()
	r.poke()
}

// SetBuffer sets the display buffer (0: none). Its content is unknown,
// so the next frame redraws it whole.
func (r *Renderer) SetBuffer(buf int) {
	r.mu.Lock()
	r.buf, r.applied = buf, nil
	r.mu.Unlock()
	r.poke()
}

// BindingAt resolves key on the frame the user sees.
func (r *Renderer) BindingAt(line int, key view.Key) (view.Action, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.applied == nil {
		return view.Action{}, false
	}
	return r.applied.BindingAt(line, key)
}

// BindingOnFrame resolves key on frame number seq, the one the buffer
// showed when the key was pressed (see Editor.ApplyEdit); a number it no
// longer knows (0, too old) falls back to BindingAt.
func (r *Renderer) BindingOnFrame(seq, line int, key view.Key) (view.Action, bool) {
	r.mu.Lock()
	var frame *view.Frame
	if seq > 0 {
		if e := r.recent[seq%recentFrames]; e.seq == seq {
			frame = e.frame
		}
	}
	r.mu.Unlock()
	if frame == nil {
		return r.BindingAt(line, key)
	}
	return frame.BindingAt(line, key)
}

// Notify queues a message for vim.notify.
func (r *Renderer) Notify(msg string, level chat.Level) {
	r.mu.Lock()
	r.notes = append(r.notes, note{msg: msg, level: level})
	r.mu.Unlock()
	r.poke()
}

// NotifyIfHidden queues a notification shown only when the sidebar is
// closed.
func (r *Renderer) NotifyIfHidden(msg string) {
	r.mu.Lock()
	r.notes = append(r.notes, note{msg: msg, hidden: true})
	r.mu.Unlock()
	r.poke()
}

// OpenFile queues opening path in a normal window.
func (r *Renderer) OpenFile(path string, line int) {
	r.mu.Lock()
	r.notes = append(r.notes, note{open: path, line: line})
	r.mu.Unlock()
	r.poke()
}

// RestoreInput queues putting a refused message back into the input
// buffer (chat.InputRestorer).
func (r *Renderer) RestoreInput(text string) {
	r.mu.Lock()
	r.notes = append(r.notes, note{restore: text})
	r.mu.Unlock()
	r.poke()
}

// Close stops the renderer goroutine.
func (r *Renderer) Close() {
	close(r.stop)
	<-r.done
}

// Flush applies what is pending now and returns once it is applied
// (benchmarks and tests; the host relies on the goroutine).
func (r *Renderer) Flush() { _ = r.step() }

func (r *Renderer) poke() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

func (r *Renderer) run() {
	defer close(r.done)
	var last time.Time
	for {
		select {
		case <-r.stop:
			return
		case <-r.wake:
		}
		// Leading edge: draw at once after a quiet spell, or when the
		// frame is urgent (a reply's first text: the user waits for it);
		// otherwise wait out the rest of the interval so bursts cost one
		// frame.
		// A wake-up while waiting re-checks: an urgent frame may have
		// arrived behind an ordinary one.
		for wait := FrameInterval - time.Since(last); wait > 0 && !r.urgent(); wait = FrameInterval - time.Since(last) {
			select {
			case <-r.stop:
				return
			case <-time.After(wait):
			case <-r.wake:
			}
		}
		if r.step() {
			last = time.Now()
		}
	}
}

// urgent reports whether the frame waiting to be shown asks to be drawn
// at once.
func (r *Renderer) urgent() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	f := r.frames[r.shown]
	return f != nil && f.Urgent && f != r.applied
}

// step applies what is pending and reports whether it sent a frame; a
// wake-up that drew nothing must not delay the next frame.
func (r *Renderer) step() (drew bool) {
	defer func() {
		if p := recover(); p != nil {
			slog.Error("renderer panicked", "panic", p, "stack", string(debug.Stack()))
		}
	}()
	r.mu.Lock()
	notes := r.notes
	r.notes = nil
	frame, buf, key := r.frames[r.shown], r.buf, r.shown
	old := r.applied
	if key != r.appKey || buf != r.appBuf {
		old = nil
	}
	r.mu.Unlock()

	for _, n := range notes {
		var err error
		switch {
		case n.open != "":
			err = r.editor.OpenFile(n.open, n.line)
		case n.restore != "":
			err = r.editor.RestoreInput(n.restore)
		case n.hidden:
			err = r.editor.NotifyIfHidden(buf, n.msg)
		default:
			err = r.editor.Notify(n.msg, n.level)
		}
		if err != nil {
			slog.Warn("editor side effect failed", "err", err)
		}
	}
	if frame == nil || buf == 0 {
		return false
	}
	edit, changed := view.Diff(old, frame)
	if !changed {
		return false
	}
	// Known by number before Neovim has it: a key can name it as soon
	// as the buffer shows it.
	r.mu.Lock()
	r.seq++
	seq := r.seq
	r.recent[seq%recentFrames].seq, r.recent[seq%recentFrames].frame = seq, frame
	r.mu.Unlock()
	if err := r.editor.ApplyEdit(buf, edit, seq); err != nil {
		// The buffer may have been wiped; redraw whole next time.
		slog.Warn("apply frame failed", "buf", buf, "err", err)
		r.mu.Lock()
		r.applied = nil
		r.mu.Unlock()
		return true
	}
	r.mu.Lock()
	if r.buf == buf {
		r.applied, r.appKey, r.appBuf = frame, key, buf
	}
	r.mu.Unlock()
	if key != chat.PendingKey { // the app's first frame, not the stand-in
		r.drawnOnce.Do(func() { close(r.drawn) })
	}
	return true
}

// luaEdit encodes an edit for lua/magenta/ui.lua: texts, and highlights
// as {line, start, end, group} with lines relative to the edit's start.
func luaEdit(e view.Edit) (texts []string, hls [][]any) {
	texts = make([]string, len(e.Lines))
	for i, l := range e.Lines {
		texts[i] = l.Text
		for _, h := range l.Hl {
			hls = append(hls, []any{i, h.Start, h.End, h.Group})
		}
	}
	if hls == nil {
		hls = [][]any{}
	}
	return texts, hls
}

func levelName(l chat.Level) string {
	switch l {
	case chat.LevelError:
		return "error"
	case chat.LevelWarn:
		return "warn"
	}
	return "info"
}

var _ chat.Screen = (*Renderer)(nil)

func errorf(format string, args ...any) error { return fmt.Errorf("magenta: "+format, args...) }
