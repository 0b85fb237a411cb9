package posixremote

import (
	"context"
	"fmt"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/localshell"
)

// Shell runs commands on a Remote: localshell's output pipeline, log
// files (on the host), timeout, abort and supervisor around the local
// client (docker, ssh) that a launcher starts with the command inside
// WrapScript there. Package docker's and sshenv's Shells embed it. It is
// safe for concurrent use.
type Shell struct {
	m     *Remote
	local *localshell.Shell
	cwd   string
	kind  string
	hooks ShellHooks
}

// ShellHooks are what an environment tells a Shell.
type ShellHooks struct {
	// Launcher makes the launcher of commands run by kind ("bash" or
	// "sh") inside WrapScript, on a terminal there when interactive.
	Launcher func(kind string, interactive bool) localshell.Launcher
	// NoDir says a failed result is the transport's report that the
	// call's directory is missing: the command never ran.
	NoDir func(res *capabilities.ExecResult) bool
	// Lost is the transport's failure behind a result that is not a
	// success (a container stopped or paused, a connection lost), nil
	// when the status is the command's own.
	Lost func(ctx context.Context, res *capabilities.ExecResult) error
}

// NewShell returns the Shell of m; bash says whether the machine has
// bash (else commands run with sh). opts configure the log root, caps
// and timeouts as for a local shell; its Cwd is the machine's directory
// of calls that set none, its Env and launchers are replaced (the
// machine's own environment is used, hardened like a local command's).
func NewShell(m *Remote, bash bool, opts localshell.Options, hooks ShellHooks) *Shell {
	kind := "sh"
	if bash {
		kind = "bash"
	}
	opts.Env = []string{} // not the host's: only the hardening is sent
	opts.Launch = hooks.Launcher(kind, false)
	opts.LaunchInteractive = hooks.Launcher(kind, true)
	return &Shell{m: m, local: localshell.New(opts), cwd: opts.Cwd, kind: kind, hooks: hooks}
}

// Kind is "bash" or "sh": what runs the commands.
func (s *Shell) Kind() string { return s.kind }

// LogRoot is where the logs go (on the host).
func (s *Shell) LogRoot() string { return s.local.LogRoot() }

// Warning is the local shell's message about the log root, or "".
func (s *Shell) Warning() string { return s.local.Warning() }

// Execute implements capabilities.Shell. A call whose directory the
// machine lacks fails with capabilities.ErrNotExist, as a local one
// does; a command cut off by the transport (ShellHooks.Lost) returns
// that error, with the log's path, rather than a result that looks like
// the command's own failure.
func (s *Shell) Execute(ctx context.Context, command string, opts capabilities.ExecOptions) (*capabilities.ExecResult, error) {
	res, err := s.local.Execute(ctx, command, opts)
	if err != nil || (res.ExitCode == 0 && !res.TimedOut && !res.Cancelled) {
		return res, err
	}
	if s.hooks.NoDir(res) {
		return nil, fmt.Errorf("%s: %w %s", Dir(s.cwd, opts.Cwd), capabilities.ErrNotExist, s.m.Where)
	}
	SignalStatus(res)
	if lost := s.hooks.Lost(ctx, res); lost != nil {
		return nil, fmt.Errorf("%w; the command's output so far is in %s", lost, res.LogPath)
	}
	return res, nil
}
