package chat

import (
	"log/slog"
	"slices"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/chat/view"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// Terminals opens interactive commands' terminals in the editor (the
// host implements it with Neovim terminal buffers). Its methods must not
// block: they are called from thread goroutines.
type Terminals interface {
	// Open shows r.Term in a terminal window, or focuses the window
	// already showing r.Key.
	Open(r TerminalRequest)
	// Ended tells the window of key (if one is open) how its command
	// ended ("exited 0"); it shows that as its last line.
	Ended(key, exit string)
}

// TerminalRequest is one terminal window to open.
type TerminalRequest struct {
	// Key names the command (thread and entry): one window per command.
	Key   string
	Title string
	Term  capabilities.Terminal
	// Exit is how the command ended, "" while it runs.
	Exit string
	// Opened is called with true when the window opened and false when
	// it closed (or could not open), from the opener's goroutines.
	Opened func(open bool)
}

// msgTerminalWindow says the terminal window of entry id opened or
// closed.
type msgTerminalWindow struct {
	id   string
	open bool
}

func (m msgTerminalWindow) apply(t *Thread) {
	for _, e := range t.entries {
		if e.id != m.id || e.kind != entryTool || e.tool.Terminal == view.TerminalNone {
			continue
		}
		state := view.TerminalAvailable
		if m.open {
			state = view.TerminalOpen
		}
		if e.tool.Terminal != state {
			e.tool.Terminal = state
			t.touch(e)
		}
	}
}

// refreshTerminal copies an interactive command's screen and waiting
// state into its block; it reports whether they changed. Called on the
// tick: the screen changes without the Live's sequence moving.
func refreshTerminal(e *entry, snap tools.LiveSnapshot, key string) bool {
	if snap.Terminal == nil {
		return false
	}
	changed := false
	if e.term == nil {
		e.term, changed = snap.Terminal, true
		if e.tool.Terminal == view.TerminalNone {
			e.tool.Terminal = view.TerminalAvailable
		}
		e.tool.TerminalKey = key
	}
	screen := snap.Terminal.Screen()
	if len(screen) > view.ScreenLines {
		screen = screen[len(screen)-view.ScreenLines:]
	}
	if !slices.Equal(screen, e.tool.Screen) {
		e.tool.Screen, changed = screen, true
	}
	if w := snap.Terminal.WaitingForInput(); w != e.tool.Waiting {
		e.tool.Waiting, changed = w, true
	}
	return changed
}

// endTerminal records how an interactive command ended and tells its
// window, if one is open.
func (t *Thread) endTerminal(e *entry) {
	snap := e.live.Snapshot()
	if snap.Terminal == nil {
		return
	}
	refreshTerminal(e, snap, t.deps.TerminalKey)
	e.tool.Waiting = false
	e.termExit = snap.TerminalExit
	if e.termExit == "" {
		e.termExit = "ended"
	}
	if t.deps.Terminals != nil && e.tool.Terminal == view.TerminalOpen {
		t.deps.Terminals.Ended(t.terminalKey(e), e.termExit)
	}
}

func (t *Thread) terminalKey(e *entry) string { return t.ID + "/" + e.id }

// openTerminal opens the terminal window of the tool call id. A finished
// command's window shows the replay of what it printed, then how it
// ended; typing there does nothing.
func (t *Thread) openTerminal(id string) {
	var e *entry
	for _, x := range t.entries {
		if x.id == id && x.kind == entryTool {
			e = x
		}
	}
	if e != nil && e.term == nil && e.live != nil {
		// Pressed before the tick that would have seen the terminal.
		if refreshTerminal(e, e.live.Snapshot(), t.deps.TerminalKey) {
			t.touch(e)
		}
	}
	if e == nil || e.term == nil {
		slog.Info("thread: no terminal to open", "entry", id)
		return
	}
	if t.deps.Terminals == nil {
		t.notice(view.NoticeWarning, "this editor cannot open terminal windows")
		return
	}
	exit := ""
	if e.tool.Status != view.ToolRunning {
		exit = e.termExit
		if exit == "" {
			exit = "ended"
		}
	}
	title := e.desc
	if title == "" {
		title = e.tool.Detail
	}
	t.deps.Terminals.Open(TerminalRequest{
		Key: t.terminalKey(e), Title: title, Term: e.term, Exit: exit,
		Opened: func(open bool) { t.enqueue(msgTerminalWindow{id: id, open: open}) },
	})
}
