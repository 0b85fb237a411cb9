package posixremote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path"
	"strconv"
	"strings"
	"syscall"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/localshell"
)

// Runner is how one machine is reached: package docker's container
// (`docker exec`), package sshenv's Conn (a channel of the ssh master).
// Implementations are safe for concurrent use.
type Runner interface {
	// Command returns, not started, the local process that runs
	// `sh -c script sh args...` on the machine; stdin says whether the
	// caller attaches one (without, the script's stdin is empty).
	// Cancelling ctx kills it. An error means the machine cannot be
	// reached now (sshenv connects first).
	Command(ctx context.Context, stdin bool, script string, args ...string) (*exec.Cmd, error)
	// Failure reads the non-zero exit of such a process (stderr trimmed,
	// err Wait's error): an error when the status is the transport's
	// rather than the script's (a lost connection, a paused or removed
	// container), nil when the script itself exited so.
	Failure(ctx context.Context, code int, stderr string, err error) error
}

// ScriptRunner is a Runner that may also run a script without stdin
// through a helper already on the machine (sshenv's remote agent):
// cheaper than a process here and a session there. handled is false when
// it cannot now; the script then runs through Command. err is the
// transport's failure (naming the machine) or ctx's end; code and stderr
// are the script's own otherwise.
type ScriptRunner interface {
	RunScript(ctx context.Context, script string, args ...string) (out []byte, code int, stderr string, handled bool, err error)
}

// Remote is a machine reached through a Runner, with the words its
// errors use. It is safe for concurrent use.
type Remote struct {
	Runner
	// Name names the machine at the start of an error: "docker container
	// web", "ssh devbox".
	Name string
	// Program names the transport when it cannot be started: "docker
	// exec", "ssh".
	Program string
	// Where names the machine after a path: "in container web", "on
	// devbox".
	Where string
	// Reading starts the error of a read cut short: "reading in the
	// container", "reading over ssh".
	Reading string
}

// Run runs script with args on the machine, with stdin when it is not
// nil, and returns its stdout, exit code and trimmed stderr. err is set
// when the transport could not run it or failed (Runner.Failure), or
// ctx ended.
func (m *Remote) Run(ctx context.Context, stdin io.Reader, script string, args ...string) (out []byte, code int, stderr string, err error) {
	out, code, stderr, err, _ = m.run(ctx, stdin, script, args...)
	return out, code, stderr, err
}

// run is Run that also says whether err came from the transport
// (Runner.Command or Runner.Failure: it names the machine already).
func (m *Remote) run(ctx context.Context, stdin io.Reader, script string, args ...string) (out []byte, code int, stderr string, err error, transport bool) {
	if sr, ok := m.Runner.(ScriptRunner); ok && stdin == nil {
		out, code, stderr, handled, err := sr.RunScript(ctx, script, args...)
		if handled {
			if err != nil {
				return nil, code, stderr, err, ctx.Err() == nil
			}
			return out, code, stderr, nil, false
		}
	}
	cmd, err := m.Command(ctx, stdin != nil, script, args...)
	if err != nil {
		return nil, -1, "", err, true
	}
	if stdin != nil {
		cmd.Stdin = stdin
	}
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	if ctx.Err() != nil {
		return nil, -1, "", ctx.Err(), false
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return nil, -1, "", fmt.Errorf("%s: %w", m.Program, err), false
	}
	code = cmd.ProcessState.ExitCode()
	stderr = strings.TrimSpace(e.String())
	if code != 0 {
		if ferr := m.Failure(ctx, code, stderr, err); ferr != nil {
			return nil, code, stderr, ferr, true
		}
	}
	return o.Bytes(), code, stderr, nil, false
}

// Probe is what an environment learns from the machine when it is made.
type Probe struct {
	// Cwd is the working directory, resolved; Home is $HOME there.
	Cwd, Home string
	// Bash says whether the machine has bash (else commands run with sh).
	Bash bool
	// RgVersion is ripgrep's version there, "" without rg.
	RgVersion string
}

// Probe runs ProbeScript: cwd resolved (the machine's default directory
// when cwd is empty), $HOME, bash, rg. A cwd that is not a directory is
// capabilities.ErrNotExist.
func (m *Remote) Probe(ctx context.Context, cwd string) (Probe, error) {
	out, code, stderr, err, transport := m.run(ctx, nil, ProbeScript, cwd)
	switch {
	case err != nil && transport:
		return Probe{}, err
	case err != nil:
		return Probe{}, fmt.Errorf("%s: %w", m.Name, err)
	case code == CodeNotExist:
		return Probe{}, fmt.Errorf("%s: cwd %s: %w", m.Name, cwd, capabilities.ErrNotExist)
	case code != 0:
		return Probe{}, fmt.Errorf("%s: cannot run sh %s (exit %d): %s", m.Name, m.Where, code, stderr)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) < 3 {
		// A login script that prints (a noisy ~/.bashrc) shows here.
		return Probe{}, fmt.Errorf("%s: unexpected probe output %q", m.Name, out)
	}
	p := Probe{Cwd: lines[0], Home: lines[1], Bash: lines[2] == "bash"}
	if len(lines) > 3 {
		// "ripgrep 14.1.1 (rev …)"
		if f := strings.Fields(lines[3]); len(f) >= 2 && f[0] == "ripgrep" {
			p.RgVersion = f[1]
		}
	}
	return p, nil
}

// RealPath is where p really is on the machine: `readlink -f -- p`
// (symlinks resolved in every component, the result absolute), and for a
// path that does not exist, its deepest existing ancestor resolved with
// the rest appended (lexically: a ".." there steps back one component).
// A relative p is taken from the machine's default directory (a shell
// session's: the user's home over ssh).
func (m *Remote) RealPath(ctx context.Context, p string) (string, error) {
	if p == "" {
		return "", errors.New("real path: empty path")
	}
	out, code, stderr, err := m.Run(ctx, nil, realPathScript, p)
	if err != nil {
		return "", fmt.Errorf("real path of %s: %w", p, err)
	}
	first, resolved, ok := strings.Cut(string(out), "\n")
	n, perr := strconv.Atoi(first)
	resolved = strings.TrimSuffix(resolved, "\n")
	if code != 0 || !ok || perr != nil || !path.IsAbs(resolved) {
		if stderr == "" {
			stderr = fmt.Sprintf("exit status %d, output %q", code, out)
		}
		return "", fmt.Errorf("real path of %s %s: %s", p, m.Where, stderr)
	}
	return path.Join(append([]string{resolved}, missingTail(p, n)...)...), nil
}

// missingTail is the n trailing components realPathScript took off p,
// taken off the same way.
func missingTail(p string, n int) []string {
	tail := make([]string, n)
	for i := n - 1; i >= 0; i-- {
		j := strings.LastIndexByte(p, '/')
		if j < 0 {
			tail[i], p = p, "."
			continue
		}
		tail[i], p = p[j+1:], p[:j]
		if p == "" {
			p = "/"
		}
	}
	return tail
}

// Dir is the directory a call with cwd runs in when the shell's default
// is base, as localshell resolves it.
func Dir(base, cwd string) string {
	switch {
	case cwd == "":
		return base
	case path.IsAbs(cwd):
		return cwd
	}
	return path.Join(base, cwd)
}

// SignalStatus fixes the status of a command that timed out or was
// cancelled: the wrapper (as the engine) reports one ended by a signal
// as 128+n, which becomes ExitCode -1 and the signal's name, as
// localshell reports a local command.
func SignalStatus(res *capabilities.ExecResult) {
	if (res.TimedOut || res.Cancelled) && res.ExitCode > 128 && res.ExitCode < 128+65 {
		res.ExitCode, res.Signal = -1, localshell.SignalName(syscall.Signal(res.ExitCode-128))
	}
}
