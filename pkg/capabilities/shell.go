package capabilities

import (
	"context"
	"time"
)

// LiveTailInterval is how often at most ExecOptions.OnTail hears of new
// output: well under the chat's refresh (250 ms), so a live view is never
// staler than its own redraw, and rare enough that a command printing a
// million lines pays for a few dozen calls, not a million.
const LiveTailInterval = 100 * time.Millisecond

// Output retention: how many lines a Shell keeps of a command's output
// for the model. Everything else goes only to the log file. The tool's
// description quotes these numbers.
const (
	ShellHeadLines = 10
	ShellTailLines = 20
	// ShellMaxLineBytes caps one kept line; longer lines are cut in the
	// middle with a marker saying how much was left out.
	ShellMaxLineBytes = 2000
	// ShellDefaultTimeout applies when a call sets none.
	ShellDefaultTimeout = 120 * time.Second
	// ShellTerminateGrace is how long a process group has after SIGTERM
	// before SIGKILL.
	ShellTerminateGrace = 200 * time.Millisecond
)

// Stream names the pipe a line came from.
type Stream int

const (
	Stdout Stream = iota
	Stderr
)

func (s Stream) String() string {
	if s == Stderr {
		return "stderr"
	}
	return "stdout"
}

// OutputLine is one cleaned line of output: ANSI sequences stripped,
// carriage-return redraws folded to their final state, invalid UTF-8
// replaced, cut in the middle past ShellMaxLineBytes, no trailing newline.
type OutputLine struct {
	Stream Stream
	Text   string
}

// ExecOptions are the per-call settings of Shell.Execute.
type ExecOptions struct {
	// ThreadID and RequestID name the log file
	// (<log root>/threads/<thread>/tools/<request>/bashCommand.log); they
	// are sanitised to safe path segments.
	ThreadID  string
	RequestID string
	// Cwd is the working directory; empty means the environment's.
	Cwd string
	// Timeout ends the command (terminate, as on cancel); zero means
	// ShellDefaultTimeout. Implementations cap it at their maximum. An
	// interactive command is not ended by it within TerminalInputGrace of
	// the user's last keystroke (see TerminalDeadline).
	Timeout time.Duration
	// OnOutput, when set, receives each line as it is read, from the
	// shell's reader goroutine. It must not block. It costs a call and a
	// string per line; a live view wants OnTail instead.
	OnOutput func(OutputLine)
	// OnTail, when set, receives the latest lines (up to ShellTailLines,
	// oldest first) and how many lines there have been, at most every
	// LiveTailInterval while output arrives and once when it has ended.
	// It is how a view follows a command: the shell keeps its fast path
	// (the log and the retained head and tail still get every line). It
	// must not block; the slice is built for each call and is the
	// callee's to keep.
	OnTail func(lines []OutputLine, total int)
	// OnStart, when set, is called once the command has started, with
	// the timeout that applies to it (after the implementation's cap).
	OnStart func(timeout time.Duration)
	// Sandbox asks to run the command confined (the OS sandbox's policy).
	// An implementation that cannot confine it returns an error; it
	// never runs it unconfined instead.
	Sandbox bool
	// Interactive asks for a pseudo-terminal: stdin, stdout and stderr
	// are the PTY (one stream, reported as Stdout), the output the model
	// gets is the terminal emulator's text (scrollback and final screen),
	// and OnTerminal receives the handle. An implementation that cannot
	// give one runs the command with pipes and sets
	// ExecResult.NotInteractive.
	Interactive bool
	// OnTerminal, when set, is called once with the Terminal of an
	// interactive command, after it started and before it can end.
	OnTerminal func(Terminal)
}

// ExecResult is what a finished command left.
type ExecResult struct {
	// ExitCode is the process's exit status; -1 when it was ended by a
	// signal (see Signal).
	ExitCode int
	// Signal names the signal that ended the process ("SIGTERM",
	// "SIGKILL"), empty when it exited by itself.
	Signal string
	// TimedOut is set when the timeout ended the command; Cancelled when
	// the context did.
	TimedOut  bool
	Cancelled bool
	// Head holds the first lines, Tail the last ones; together they hold
	// every line when TotalLines <= ShellHeadLines + ShellTailLines.
	Head, Tail []OutputLine
	TotalLines int
	// Binary is set when the output looked binary; it is then summarised
	// (BinaryBytes) rather than kept as lines.
	Binary      bool
	BinaryBytes int64
	// LogPath is the log of the run: every line, unless the log was
	// capped (LogDroppedBytes) or could not be written in full (LogError).
	LogPath string
	// LogDroppedBytes counts the bytes left out of the middle of a log
	// that passed its size cap (a marker in the log shows where).
	LogDroppedBytes int64
	// LogError is why the log is incomplete (a write failed: disk full),
	// or "".
	LogError string
	Duration time.Duration
	// Confined is set when the command ran in the sandbox.
	Confined bool
	// Blocked says what the sandbox blocked, when the implementation can
	// tell from the run ("the sandbox blocked writing /home/u/x"), else "".
	// Only a confined run sets it.
	Blocked string
	// Disarmed says what the sandbox undid after a confined run, in
	// sentences ("the command created a git repository at sub whose
	// config setting filter.x.clean would run a program …; it was
	// renamed …"), else empty.
	Disarmed []string
	// Interactive is set when the command ran under a PTY.
	// NotInteractive says why an interactive command ran with pipes
	// instead ("no pseudo-terminal: …"), else "".
	Interactive    bool
	NotInteractive string
	// WaitingForInput is set when an interactive command was ended
	// (timeout, cancel) while it seemed to wait for input: silent, its
	// screen ending in a prompt.
	WaitingForInput bool
}

// Shell runs one shell command at a time per call; implementations are
// safe for concurrent use by several tool calls.
//
// Execute runs command with bash semantics and waits for it. Cancelling
// ctx terminates it (its whole process tree where the implementation can
// find it, else its process group: SIGTERM, then SIGKILL after
// ShellTerminateGrace) and Execute returns the partial result with
// Cancelled set and a nil error. An error is returned only when the
// command could not be run at all, or was refused: a permission decorator
// returns an error matching ErrPermissionDenied when the user declines.
type Shell interface {
	Execute(ctx context.Context, command string, opts ExecOptions) (*ExecResult, error)
}
