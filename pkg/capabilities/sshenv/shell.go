package sshenv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/localshell"
	"github.com/magenta-nvim/magenta/pkg/capabilities/posixremote"
	"github.com/magenta-nvim/magenta/pkg/capabilities/remoteagent"
)

// codeNoDir is launchPrelude's exit when the call's directory cannot be
// entered; noDirPrefix starts the one line it prints then.
const (
	codeNoDir   = 211
	noDirPrefix = "magenta: cannot enter directory "
)

// launchPrelude $1=dir $2=command $3=bash|sh $4=marker $5…=NAME=value,
// put before the wrapper (which reads $1=command $2=kind $3=marker)
// in the one script the remote shell runs: enters the directory, drops
// the variables localshell drops from a local command's environment
// (files bash would source, what changes how the command string
// parses), and exports the hardened ones — all in the process that then
// runs the wrapper, since every exec costs on a loaded machine.
var launchPrelude = `cd -- "$1" 2>/dev/null || { echo "` + noDirPrefix + `$1" >&2; exit 211; }
shift
unset ` + strings.Join(droppedVars, " ") + `
if [ -n "${BASH_VERSION:-}" ]; then export -n SHELLOPTS BASHOPTS; else unset SHELLOPTS BASHOPTS; fi
i=0
for kv in "$@"; do
	i=$((i+1))
	[ "$i" -le 3 ] || export "$kv"
done
`

// droppedVars are the variables a remote command does not inherit from
// the session (as localshell drops them locally); SHELLOPTS and BASHOPTS
// too, which bash keeps read-only (the prelude un-exports them).
var droppedVars = []string{"BASH_ENV", "ENV", "CDPATH", "GLOBIGNORE", "RIPGREP_CONFIG_PATH"}

// agentUnset are the variables a command through the agent drops.
var agentUnset = append(append([]string{}, droppedVars...), "SHELLOPTS", "BASHOPTS")

// launchCommand is the remote command of one call: the wrapper for kind
// run by bash (--noprofile --norc) or sh straight from the login shell.
func launchCommand(cwd, command, kind, marker string, env []string) string {
	script, interp := launchPrelude+posixremote.WrapScript, "sh -c "
	if kind == "bash" {
		script, interp = launchPrelude+posixremote.WrapScriptBash, "bash --noprofile --norc -c "
	}
	var b strings.Builder
	b.WriteString("exec ")
	b.WriteString(interp)
	b.WriteString(quote(script))
	b.WriteString(" magenta")
	for _, a := range append([]string{cwd, command, kind, marker}, env...) {
		b.WriteByte(' ')
		b.WriteString(quote(a))
	}
	return b.String()
}

// Shell runs commands on the remote machine: posixremote's Shell with a
// launcher that runs an ssh client on the master connection. It is safe
// for concurrent use.
type Shell struct {
	*posixremote.Shell
	c *Conn
}

var _ capabilities.Shell = (*Shell)(nil)

// NewShell returns a Shell on c; bash says whether the remote machine
// has bash (else commands run with sh). opts configure the log root,
// caps and timeouts as for a local shell (posixremote.NewShell).
func NewShell(c *Conn, bash bool, opts localshell.Options) *Shell {
	return &Shell{c: c, Shell: posixremote.NewShell(c.remote, bash, opts, posixremote.ShellHooks{
		Launcher: func(kind string, interactive bool) localshell.Launcher { return launcher(c, kind, interactive) },
		NoDir: func(res *capabilities.ExecResult) bool {
			return res.ExitCode == codeNoDir && res.TotalLines == 1 && strings.HasPrefix(res.Head[0].Text, noDirPrefix)
		},
		// A lost master shows as ssh's own exit 255, or as a timeout or
		// cancel while the host did not answer; any other status is the
		// command's (no `ssh -O check` needed).
		Lost: func(ctx context.Context, res *capabilities.ExecResult) error {
			if res.ExitCode == exitSSH && lastText(res) == remoteagent.LostMessage {
				return c.agentLost(ctx)
			}
			if res.ExitCode != exitSSH && !res.TimedOut && !res.Cancelled {
				return nil
			}
			return c.failed(ctx, lastText(res))
		},
	})}
}

// launcher runs each command as `ssh -T host <launchCommand …>` on the
// master (`-tt` for an interactive one: ssh, on localshell's PTY, puts
// it in raw mode, relays keystrokes and resizes to a terminal sshd
// opens remotely). End sweeps the command's marker over a second
// channel; After remembers the marker when the master died meanwhile,
// so the next connection sweeps it.
func launcher(c *Conn, kind string, tty bool) localshell.Launcher {
	return func(command, cwd string, env []string) (*localshell.Launch, error) {
		marker, err := posixremote.NewMarker()
		if err != nil {
			return nil, err
		}
		cmd := c.Command(context.Background(), tty, launchCommand(cwd, command, kind, marker, env))
		end := func(ctx context.Context) error {
			_, code, stderr, err := c.remote.Run(ctx, nil, posixremote.EndScript, marker)
			if err == nil && code != 0 {
				err = fmt.Errorf("exit %d: %s", code, stderr)
			}
			if err != nil {
				c.orphaned(marker)
				return fmt.Errorf("ending the command on %s: %w", c.host, err)
			}
			return nil
		}
		after := func() []string {
			// A master that gave up removes its socket before it exits,
			// and the call's client sees the end only when it exits: the
			// socket is gone by then, while the process may still be
			// exiting (signal 0 reaches it).
			if !c.socketExists() || !c.masterAlive() {
				c.orphaned(marker)
			}
			return nil
		}
		wrapped := &localshell.Launch{Cmd: cmd, End: end, After: after}
		agent := c.agentClient()
		if tty || agent == nil {
			return wrapped, nil
		}
		// Through the agent: a frame on its channel and a fork there. A
		// timeout or cancel signals through it too (no End), and a
		// command it did not take (its channel ended) runs wrapped.
		req := remoteagent.Request{Argv: commandArgv(kind, command), Dir: cwd, Env: env,
			Unset: agentUnset, Marker: marker,
			NoDirExit: codeNoDir, NoDirMessage: noDirPrefix,
			GraceMillis: int(capabilities.ShellTerminateGrace / time.Millisecond)}
		var started *remoteagent.Command
		return &localshell.Launch{Cmd: cmd,
			Start: func(cmd *exec.Cmd) (localshell.Started, error) {
				out, _ := cmd.Stdout.(*os.File)
				errs, _ := cmd.Stderr.(*os.File)
				st, err := agent.Start(req, out, errs)
				if errors.Is(err, remoteagent.ErrClosed) {
					return nil, fmt.Errorf("%w: %v", localshell.ErrNotTaken, err)
				}
				started = st
				return st, err
			},
			After: func() []string {
				if started == nil || !started.Lost() {
					return after()
				}
				// The agent's channel ended under the command (the agent
				// killed there, the connection lost): nothing ended what
				// it started. Swept now when the master answers, else by
				// the next connection.
				ctx, cancel := context.WithTimeout(context.Background(), checkTimeout)
				defer cancel()
				if _, code, _, err := c.remote.Run(ctx, nil, posixremote.EndScript, marker); err != nil || code != 0 {
					c.orphaned(marker)
				}
				return nil
			},
			Fallback: func() (*localshell.Launch, error) { return wrapped, nil },
		}, nil
	}
}

// commandArgv runs command with kind, as the wrapper does.
func commandArgv(kind, command string) []string {
	if kind == "bash" {
		return []string{"bash", "--noprofile", "--norc", "-c", command}
	}
	return []string{"sh", "-c", command}
}

// Execute implements capabilities.Shell. It connects first when the
// master is down (an unreachable host, a changed host key or a refused
// key is an error, never a prompt). A command cut off by a lost
// connection returns an error matching ErrConnectionLost (with the log's
// path) rather than a result that looks like the command's own failure;
// the next call connects again.
func (s *Shell) Execute(ctx context.Context, command string, opts capabilities.ExecOptions) (*capabilities.ExecResult, error) {
	if err := s.c.ensure(ctx); err != nil {
		return nil, err
	}
	s.c.ensureAgent(ctx)
	return s.Shell.Execute(ctx, command, opts)
}

// lastText is the last output line (ssh's own message when it failed).
func lastText(res *capabilities.ExecResult) string {
	switch {
	case len(res.Tail) > 0:
		return res.Tail[len(res.Tail)-1].Text
	case len(res.Head) > 0:
		return res.Head[len(res.Head)-1].Text
	}
	return ""
}
