package memshell

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// Script is the scripted answer to the commands it matches.
type Script struct {
	// Command matches exactly; Match, when set, is used instead.
	Command string
	Match   func(command string) bool
	// Result is returned (a copy); Head, Tail and TotalLines are computed
	// from Lines when Lines is not empty.
	Result capabilities.ExecResult
	// Lines are streamed to OnOutput, in order, before Execute returns;
	// OnTail hears of the last of them once.
	Lines []capabilities.OutputLine
	// Err, when set, is returned instead of a result (nothing streamed).
	Err error
	// ConfinedErr, when set, is returned instead of a result by a
	// confined run only: a sandbox that cannot start.
	ConfinedErr error
	// Blocked, when set, is what a confined run of the command reports
	// the sandbox blocked (ExecResult.Blocked); an unconfined run of the
	// same script reports nothing blocked.
	Blocked string
	// Block makes Execute wait, after streaming Lines, until ctx is done
	// (Cancelled) or the call's Timeout passes (TimedOut); the result then
	// says the command was ended by SIGTERM, like a real shell's.
	Block bool
	// Terminal, when set, plays an interactive command: a call with
	// ExecOptions.Interactive hands it to OnTerminal, streams Lines, and
	// waits until the test calls Terminal.Exit (its code is the exit
	// code), ctx is done (Cancelled) or the call's Timeout passes
	// (TimedOut); WaitingForInput is reported when it was ended while
	// the terminal said so. A Terminal plays one call. A call without
	// Interactive runs the script as if Terminal were not set.
	Terminal *Terminal
}

// Call is one recorded Execute call.
type Call struct {
	Command string
	Opts    capabilities.ExecOptions
}

// Shell is an in-memory capabilities.Shell; safe for concurrent use.
type Shell struct {
	scripts []Script

	mu    sync.Mutex
	calls []Call
}

var _ capabilities.Shell = (*Shell)(nil)

// New returns a Shell answering with the first script that matches.
func New(scripts ...Script) *Shell {
	return &Shell{scripts: scripts}
}

// Calls returns the calls so far, oldest first.
func (s *Shell) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// Execute records the call and plays the matching script; an unscripted
// command is an error.
func (s *Shell) Execute(ctx context.Context, command string, opts capabilities.ExecOptions) (*capabilities.ExecResult, error) {
	s.mu.Lock()
	s.calls = append(s.calls, Call{Command: command, Opts: opts})
	s.mu.Unlock()

	sc, ok := s.match(command)
	if !ok {
		return nil, fmt.Errorf("memshell: unscripted command %q", command)
	}
	if sc.Err != nil {
		return nil, sc.Err
	}
	if sc.ConfinedErr != nil && opts.Sandbox {
		return nil, sc.ConfinedErr
	}
	if opts.OnStart != nil {
		// A real shell reports the timeout it applies; this one applies
		// the call's, or the default.
		t := opts.Timeout
		if t <= 0 {
			t = capabilities.ShellDefaultTimeout
		}
		opts.OnStart(t)
	}
	res := sc.Result
	// Like a real sandboxed shell: only a confined run is confined, and
	// only it can be blocked.
	res.Confined = opts.Sandbox
	if opts.Sandbox {
		res.Blocked = sc.Blocked
	}
	if len(sc.Lines) > 0 {
		res.Head, res.Tail, res.TotalLines = Retain(sc.Lines)
	}
	for _, l := range sc.Lines {
		if opts.OnOutput != nil {
			opts.OnOutput(l)
		}
	}
	if opts.OnTail != nil && len(sc.Lines) > 0 {
		tail := sc.Lines[max(0, len(sc.Lines)-capabilities.ShellTailLines):]
		opts.OnTail(append([]capabilities.OutputLine(nil), tail...), len(sc.Lines))
	}
	if sc.Terminal != nil && opts.Interactive {
		return s.playTerminal(ctx, sc.Terminal, opts, res), nil
	}
	if sc.Block {
		var timeout <-chan time.Time
		if opts.Timeout > 0 {
			t := time.NewTimer(opts.Timeout)
			defer t.Stop()
			timeout = t.C
		}
		select {
		case <-ctx.Done():
			res.Cancelled = true
		case <-timeout:
			res.TimedOut = true
		}
		if res.Signal == "" {
			res.ExitCode, res.Signal = -1, "SIGTERM"
		}
	}
	return &res, nil
}

// playTerminal waits for the scripted interactive command to end.
func (s *Shell) playTerminal(ctx context.Context, term *Terminal, opts capabilities.ExecOptions, res capabilities.ExecResult) *capabilities.ExecResult {
	res.Interactive = true
	if opts.OnTerminal != nil {
		opts.OnTerminal(term)
	}
	var timeout <-chan time.Time
	start := time.Now()
	if opts.Timeout > 0 {
		t := time.NewTimer(opts.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	for ended := false; !ended; {
		select {
		case <-term.exited:
			res.ExitCode = term.exitCode()
			return &res
		case <-ctx.Done():
			res.Cancelled, ended = true, true
		case <-timeout:
			// As a real shell: not within the grace after a keystroke.
			end := capabilities.TerminalDeadline(start, opts.Timeout, term.LastInput(), capabilities.TerminalInputGrace)
			if left := time.Until(end); left > 0 {
				timeout = time.After(left)
				continue
			}
			res.TimedOut, ended = true, true
		}
	}
	res.WaitingForInput = term.stop()
	res.ExitCode, res.Signal = -1, "SIGTERM"
	return &res
}

func (s *Shell) match(command string) (Script, bool) {
	for _, sc := range s.scripts {
		if sc.Match != nil && sc.Match(command) || sc.Match == nil && sc.Command == command {
			return sc, true
		}
	}
	return Script{}, false
}

// Retain splits lines as a Shell keeps them: the first ShellHeadLines,
// the last ShellTailLines of the rest, and the total count.
func Retain(lines []capabilities.OutputLine) (head, tail []capabilities.OutputLine, total int) {
	total = len(lines)
	n := min(total, capabilities.ShellHeadLines)
	head = append([]capabilities.OutputLine(nil), lines[:n]...)
	rest := lines[n:]
	if len(rest) > capabilities.ShellTailLines {
		rest = rest[len(rest)-capabilities.ShellTailLines:]
	}
	if len(rest) > 0 {
		tail = append([]capabilities.OutputLine(nil), rest...)
	}
	return head, tail, total
}
