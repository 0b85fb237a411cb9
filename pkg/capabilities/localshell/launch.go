package localshell

import (
	"context"
	"errors"
	"os/exec"
	"syscall"
	"time"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// Launcher turns a command into the local process that runs it: the
// variation point between bash on this machine and the same command run
// elsewhere (`docker exec` into a container). cwd is the call's working
// directory (ExecOptions.Cwd resolved against Options.Cwd); env is the
// hardened environment. The process's stdout and stderr are set by the
// Shell, its stdin stays the null device, and it runs under the same
// supervisor, timeout and output pipeline as a local command.
type Launcher func(command, cwd string, env []string) (*Launch, error)

// Launch is one launched command.
type Launch struct {
	// Cmd is the local process, not started yet.
	Cmd *exec.Cmd
	// End, when set, ends the command and everything it started where
	// it really runs (inside a container, where the local process tree
	// does not reach): SIGTERM, then SIGKILL after ShellTerminateGrace.
	// It is called on timeout and cancellation before the local process
	// is terminated, which would otherwise leave the remote command
	// running.
	End func(ctx context.Context) error
	// After, when set, runs once the command has ended and its output
	// is drained; what it returns becomes ExecResult.Disarmed (the
	// sandbox's check of what a confined command left behind).
	After func() []string
	// Start, when set, starts the command described by Cmd (its Args,
	// Env, Dir and streams; Cmd itself is never started) somewhere that
	// ends everything the command started when it ends, is killed, or
	// the host dies: a confinement parent, whose command has a PID
	// namespace of its own. No supervisor is needed then. Commands on a
	// terminal are never started this way.
	Start func(cmd *exec.Cmd) (Started, error)
	// Fallback, when set with Start, is the launch to run instead when
	// Start did not take the command (ErrNotTaken): the confinement
	// parent died before the host noticed.
	Fallback func() (*Launch, error)
}

// ErrNotTaken: Launch.Start did not take the command; nothing of it ran.
var ErrNotTaken = errors.New("the command was not taken")

// Started is a command Launch.Start started.
type Started interface {
	// Wait waits for the command and returns its status; an error
	// means the status is unknown (whoever ran it stopped answering).
	Wait() (syscall.WaitStatus, error)
	// Signal sends sig to every process of the command.
	Signal(sig syscall.Signal)
	// Kill ends the command and everything it started.
	Kill()
}

// endWait bounds End and, after it, the wait for the local process to
// report the remote command's status by itself.
const endWait = capabilities.ShellTerminateGrace + supervisorMargin

// bashLaunch is the default launcher: bash on this machine.
func bashLaunch(command, cwd string, env []string) (*Launch, error) {
	cmd := exec.Command("bash", "--noprofile", "--norc", "-c", command)
	cmd.Dir = cwd
	cmd.Env = env
	return &Launch{Cmd: cmd}, nil
}

// endRemote runs l.End, then gives the local process endWait to exit on
// its own (it then reports the remote command's status) before the
// caller terminates it.
func endRemote(l *Launch, waitDone <-chan struct{}) {
	if l.End == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), endWait)
	defer cancel()
	_ = l.End(ctx) // a failed End (container gone) leaves only the local side to end
	t := time.NewTimer(endWait)
	defer t.Stop()
	select {
	case <-waitDone:
	case <-t.C:
	}
}
