package hooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/localshell"
)

// MaxOutput caps what is kept of a hook's stdout and of its stderr; the
// rest is read (so the hook never blocks on a full pipe) and counted.
const MaxOutput = 64 << 10

// killGrace is how long a hook has after SIGTERM (at its timeout, or
// when the turn is aborted) before SIGKILL goes to its process group.
const killGrace = capabilities.ShellTerminateGrace

// pipeWait bounds the wait for stdout and stderr to close once the hook
// has exited: a background process it left holding them must not hold
// the tool call.
const pipeWait = 500 * time.Millisecond

// Place is where and how a thread's hooks run: bash on this machine
// (for a workspace's hooks, under the sandbox when commands are
// confined) or inside a Docker thread's container.
type Place struct {
	// Launch makes the process for a command in cwd, not started, with
	// env added to the environment it gives the command.
	Launch localshell.Launcher
	// Cwd is the thread's working directory, also CLAUDE_PROJECT_DIR.
	Cwd string
	// How says how the hooks run, for the user ("confined by the
	// sandbox", "in container dev").
	How string
}

// run is one execution of a hook.
type run struct {
	hook      Hook
	exitCode  int
	signal    string // the signal that ended it ("" when it exited)
	err       error  // it could not start
	timedOut  bool
	cancelled bool // the turn was aborted (the context ended)
	stdout    capture
	stderr    capture
	took      time.Duration
}

// capture keeps the first MaxOutput bytes written and counts the rest.
type capture struct {
	buf   []byte
	total int64
}

func (c *capture) Write(p []byte) (int, error) {
	c.total += int64(len(p))
	if room := MaxOutput - len(c.buf); room > 0 {
		c.buf = append(c.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// cut is how many bytes were not kept.
func (c *capture) cut() int64 { return c.total - int64(len(c.buf)) }

// execute runs h at p with input on its stdin: in a process group of its
// own, ended with the group (SIGTERM, then SIGKILL killGrace later) at
// its timeout or when ctx ends; whatever the group still holds when the
// hook exits is killed too.
func execute(ctx context.Context, p Place, h Hook, input []byte) (r run) {
	r.hook = h
	start := time.Now()
	defer func() { r.took = time.Since(start) }()
	l, err := p.Launch(h.Command, p.Cwd, []string{"CLAUDE_PROJECT_DIR=" + p.Cwd})
	if err != nil {
		r.err = err
		return r
	}
	cmd := l.Cmd
	cmd.Stdin = bytes.NewReader(input)
	cmd.Stdout, cmd.Stderr = &r.stdout, &r.stderr
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.WaitDelay = pipeWait
	if err := cmd.Start(); err != nil {
		r.err = err
		return r
	}
	pgid := cmd.Process.Pid
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timer := time.NewTimer(h.Timeout)
	defer timer.Stop()
	select {
	case err = <-done:
	case <-timer.C:
		r.timedOut = true
		err = stop(l, pgid, done)
	case <-ctx.Done():
		r.cancelled = true
		err = stop(l, pgid, done)
	}
	// What the hook left running in its group goes with it.
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	if l.After != nil {
		l.After()
	}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			r.signal = localshell.SignalName(ws.Signal())
			r.exitCode = -1
		} else {
			r.exitCode = exit.ExitCode()
		}
	case err != nil && !errors.Is(err, exec.ErrWaitDelay):
		r.err = err
	}
	return r
}

// stop ends a hook: where it really runs first (a container), then its
// process group, SIGTERM and, after killGrace, SIGKILL.
func stop(l *localshell.Launch, pgid int, done <-chan error) error {
	if l.End != nil {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), killGrace+5*time.Second)
			defer cancel()
			_ = l.End(ctx)
		}()
	}
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	t := time.NewTimer(killGrace)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	return <-done
}

// BashPlace runs hooks with bash on this machine, in cwd, with env (nil:
// the host's own environment) plus the hook's variables: what setup()'s
// hooks get, the user's own configuration run as the user.
func BashPlace(cwd string, env []string, how string) Place {
	return Place{Cwd: cwd, How: how, Launch: func(command, dir string, extra []string) (*localshell.Launch, error) {
		cmd := exec.Command("bash", "--noprofile", "--norc", "-c", command)
		cmd.Dir = dir
		base := env
		if base == nil {
			base = os.Environ()
		}
		cmd.Env = append(append([]string(nil), base...), extra...)
		return &localshell.Launch{Cmd: cmd}, nil
	}}
}

// ConfinedPlace runs hooks with bash under the confiner (bubblewrap over
// the sandbox policy), with the environment it keeps of env (its
// allowlist) plus the hook's variables.
func ConfinedPlace(cwd string, env []string, c localshell.Confiner, how string) Place {
	return Place{Cwd: cwd, How: how, Launch: func(command, dir string, extra []string) (*localshell.Launch, error) {
		conf, err := c.Confine(dir, env, false)
		if err != nil {
			return nil, fmt.Errorf("could not be confined, so it did not run: %w", err)
		}
		if len(conf.Argv) == 0 {
			return nil, errors.New("could not be confined (no sandbox), so it did not run")
		}
		args := append(append(append([]string(nil), conf.Argv[1:]...), "bash", "--noprofile", "--norc", "-c"), command)
		cmd := exec.Command(conf.Argv[0], args...)
		cmd.Dir = dir
		cmd.Env = append(conf.Env, extra...)
		return &localshell.Launch{Cmd: cmd, After: conf.After}, nil
	}}
}
