package tools

import (
	"sync"
	"time"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// LiveLines is how many recent output lines a running tool shows.
const LiveLines = 5

// Live is what a running tool shows in the chat: its latest output lines
// and a status word. The thread gives each call one and polls it; tools
// write to it from any goroutine. A nil *Live ignores writes.
type Live struct {
	mu     sync.Mutex
	seq    uint64
	lines  []string
	total  int
	status string
	limit  time.Duration
	// started is when the command behind the call started (zero: not
	// yet, or a tool that does not say): the timer counts from it.
	started time.Time
	// term is an interactive command's terminal; termExit says how it
	// ended ("exited 0") once it has.
	term     capabilities.Terminal
	termExit string
}

// SetTerminal records the terminal of an interactive command (a Shell's
// ExecOptions.OnTerminal), so the chat can show its screen and open it.
func (l *Live) SetTerminal(t capabilities.Terminal) {
	if l == nil {
		return
	}
	l.mu.Lock()
	l.term = t
	l.seq++
	l.mu.Unlock()
}

// EndTerminal records how the interactive command ended ("exited 0"),
// shown at the end of its terminal window. Without a terminal it does
// nothing.
func (l *Live) EndTerminal(exit string) {
	if l == nil {
		return
	}
	l.mu.Lock()
	if l.term != nil {
		l.termExit = exit
		l.seq++
	}
	l.mu.Unlock()
}

// SetLimit tells the chat the call's time limit, shown with its timer.
func (l *Live) SetLimit(d time.Duration) {
	if l == nil {
		return
	}
	l.mu.Lock()
	l.limit = d
	l.seq++
	l.mu.Unlock()
}

// Started records that the command began now, with its time limit (a
// Shell's ExecOptions.OnStart): the chat's timer and limit count from
// here, not from the tool call — time spent waiting for the user's
// approval is not the command's.
func (l *Live) Started(limit time.Duration) {
	if l == nil {
		return
	}
	l.mu.Lock()
	l.limit, l.started = limit, time.Now()
	l.seq++
	l.mu.Unlock()
}

// SetTail records the latest output lines of a command (oldest first)
// and how many there have been: a Shell's ExecOptions.OnTail, which
// samples instead of reporting every line.
func (l *Live) SetTail(lines []capabilities.OutputLine, total int) {
	if l == nil {
		return
	}
	lines = lines[max(0, len(lines)-LiveLines):]
	texts := make([]string, len(lines))
	for i, line := range lines {
		texts[i] = line.Text
	}
	l.mu.Lock()
	if total != l.total {
		l.lines, l.total = texts, total
		l.seq++
	}
	l.mu.Unlock()
}

// SetStatus replaces the status shown next to the tool's name.
func (l *Live) SetStatus(s string) {
	if l == nil {
		return
	}
	l.mu.Lock()
	if l.status != s {
		l.status = s
		l.seq++
	}
	l.mu.Unlock()
}

// LiveSnapshot is a copy of a Live's state; Seq changes whenever it does.
type LiveSnapshot struct {
	Seq    uint64
	Lines  []string
	Total  int
	Status string
	Limit  time.Duration
	// Started is when the command started (zero: not yet, or unknown).
	Started time.Time
	// Terminal is the interactive command's terminal (nil: none), and
	// TerminalExit how it ended ("" while it runs).
	Terminal     capabilities.Terminal
	TerminalExit string
}

// Snapshot copies the current state.
func (l *Live) Snapshot() LiveSnapshot {
	if l == nil {
		return LiveSnapshot{}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return LiveSnapshot{Seq: l.seq, Lines: append([]string(nil), l.lines...), Total: l.total, Status: l.status, Limit: l.limit,
		Started: l.started, Terminal: l.term, TerminalExit: l.termExit}
}

// Describer is implemented by tools that can summarise a call for the
// chat before it runs ("remove build dir", "$ rm -rf build").
type Describer interface {
	Describe(input []byte) (summary, detail string)
}
