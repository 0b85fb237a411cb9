package capabilities

import (
	"errors"
	"time"
)

// Interactive commands (bash_command with interactive set) run under a
// pseudo-terminal. The Shell hands the caller a Terminal through
// ExecOptions.OnTerminal so the editor can show the live screen, open a
// terminal buffer fed with the raw stream, send keystrokes and resize.

// TerminalRawMaxBytes bounds the raw PTY stream a Terminal keeps for a
// late subscriber (a terminal buffer opened after the command started):
// the first part of the stream is replayed up to this many bytes, the
// rest is dropped from the replay (never from the model's text).
const TerminalRawMaxBytes = 1 << 20

// TerminalDefaultRows and TerminalDefaultCols size the PTY and the
// emulator until the first Resize.
const (
	TerminalDefaultRows = 24
	TerminalDefaultCols = 100
)

// Terminal drives an interactive command's pseudo-terminal. All methods
// are safe for concurrent use and may be called after the command ended
// (they then do nothing or return ErrTerminalClosed).
type Terminal interface {
	// Subscribe returns the raw output so far (bounded by
	// TerminalRawMaxBytes) and calls fn with every later chunk, in
	// order, from the shell's reader goroutine (fn must not block); the
	// returned cancel stops the calls. Once the command ended, fn is
	// not called again.
	Subscribe(fn func(chunk []byte)) (replay []byte, cancel func())
	// Write sends keystrokes (bytes as a terminal would: "\r" for
	// Enter, "\x03" for Ctrl-C) to the command.
	Write(p []byte) (int, error)
	// Resize sets the PTY's size (the command gets SIGWINCH) and the
	// emulator's.
	Resize(rows, cols int) error
	// Screen returns the emulated screen's lines as plain text, trailing
	// blank lines dropped.
	Screen() []string
	// WaitingForInput reports whether the command seems to wait for
	// input: silent for TerminalPromptSilence with a screen whose last
	// line looks like a prompt.
	WaitingForInput() bool
	// LastInput is when Write last sent the user's keystrokes to the
	// command (zero: never).
	LastInput() time.Time
	// Done is closed when the command has ended and the PTY is closed.
	Done() <-chan struct{}
}

// TerminalInputGrace is how long after the user's last keystroke into an
// interactive command its timeout cannot end it: a person typing an
// answer is not cut off mid-answer, whatever timeout the model chose.
// The user can always end the command (Ctrl-C in its window, abort).
const TerminalInputGrace = time.Minute

// TerminalDeadline is when an interactive command that started at start
// with the given timeout may be ended, given the user's last keystroke
// (zero: none) and the grace after it.
func TerminalDeadline(start time.Time, timeout time.Duration, lastInput time.Time, grace time.Duration) time.Time {
	end := start.Add(timeout)
	if !lastInput.IsZero() && lastInput.Add(grace).After(end) {
		end = lastInput.Add(grace)
	}
	return end
}

// TerminalPromptSilence is how long an interactive command must be
// silent, its screen ending in a prompt, before it counts as waiting for
// input.
const TerminalPromptSilence = 3 * time.Second

// ErrTerminalClosed is returned by Terminal.Write and Resize once the
// command has ended.
var ErrTerminalClosed = errors.New("the command has ended")
