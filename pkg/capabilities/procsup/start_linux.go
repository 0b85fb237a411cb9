package procsup

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"
)

const supported = true

// Self names the running executable: exec'ing it starts the very binary
// that runs, even after the file was replaced or deleted (a rebuild
// while Neovim runs), which os.Executable()'s path would not.
const Self = "/proc/self/exe"

// Process is a command running under its supervisor.
type Process struct {
	// Pid is the supervisor's; it leads its own process group.
	Pid    int
	cmd    *exec.Cmd
	status *os.File
	// hostEnd is the host's end of a spare's socket, kept open until
	// the command has ended (its closing tells the spare the host died).
	hostEnd io.Closer
	// exe is the supervisor executable: its next spare is started when
	// this command has ended ("" for none).
	exe string
}

// Start runs cmd — prepared as if it were to run directly: Path, Args,
// Dir, Env, Stdin/Stdout/Stderr — under a supervisor, the executable exe
// (normally Self; its main must call MainIfSupervisor). The
// supervisor gets cmd's directory, environment and standard files, and
// grace is the time its tree has between SIGTERM and SIGKILL.
func Start(exe string, cmd *exec.Cmd, grace time.Duration) (*Process, error) {
	return start(exe, cmd, grace, "")
}

// StartTerminal is Start for a command whose stdin, stdout and stderr
// are the slave of a pseudo-terminal: the supervisor starts it as the
// leader of a new session with that terminal (its stdin) as controlling
// terminal, so the terminal's Ctrl-C, SIGWINCH and hangup reach the
// command's foreground process group. The supervisor itself stays out of
// that session (it is not signalled by the terminal) and still ends the
// whole tree: a session leader is a descendant like any other.
func StartTerminal(exe string, cmd *exec.Cmd, grace time.Duration) (*Process, error) {
	return start(exe, cmd, grace, specTerminal)
}

func start(exe string, cmd *exec.Cmd, grace time.Duration, mode string) (*Process, error) {
	useSpare := spareable(cmd)
	if useSpare {
		// An idle supervisor takes the command (one still starting is
		// waited for); when there is none (the first command) one is
		// started for it. Either way the next spare starts when this
		// command ends (Wait).
		if sp := takeSpare(exe); sp != nil {
			p, err := sp.run(cmd, grace, mode == specTerminal)
			if err == nil {
				return p, nil
			}
			sp.discard() // it died idle: start one for the command
		}
	}
	statusR, statusW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	sup := &exec.Cmd{
		Path:       exe,
		Args:       append([]string{exe, cmd.Path}, cmd.Args[1:]...),
		Dir:        cmd.Dir,
		Env:        append(env[:len(env):len(env)], envVar+"="+strconv.Itoa(os.Getpid())+","+strconv.FormatInt(grace.Milliseconds(), 10)+mode),
		Stdin:      cmd.Stdin,
		Stdout:     cmd.Stdout,
		Stderr:     cmd.Stderr,
		ExtraFiles: []*os.File{statusW}, // fd 3 = statusFD
		// Its own group, as the command would have had; SIGHUP when
		// the host dies, whatever kills it.
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGHUP},
	}
	err = sup.Start()
	statusW.Close()
	if err != nil {
		statusR.Close()
		return nil, err
	}
	p := &Process{Pid: sup.Process.Pid, cmd: sup, status: statusR}
	if useSpare {
		p.exe = exe
	}
	return p, nil
}

// Terminate asks the supervisor to end the command and its whole tree
// (SIGTERM, SIGKILL after the grace period).
func (p *Process) Terminate() { _ = syscall.Kill(p.Pid, syscall.SIGTERM) }

// Kill ends the supervisor's group at once: the last resort when the
// supervisor does not answer Terminate.
func (p *Process) Kill() { _ = syscall.Kill(-p.Pid, syscall.SIGKILL) }

// Wait waits for the supervisor and returns the command's wait status.
// The error is non-nil when the command could not be started (the
// supervisor says why). A supervisor that died without reporting (killed)
// gives its own status.
func (p *Process) Wait() (syscall.WaitStatus, error) {
	rec, _ := io.ReadAll(p.status)
	p.status.Close()
	if p.exe != "" {
		refillSpare(p.exe)
	}
	var ws syscall.WaitStatus
	var err error
	switch {
	case len(rec) == 5 && rec[0] == statusExit:
		ws = syscall.WaitStatus(binary.LittleEndian.Uint32(rec[1:]))
	case len(rec) > 0 && rec[0] == statusStartError:
		err = errors.New(string(rec[1:]))
	default:
		werr := p.cmd.Wait()
		p.closeHostEnd()
		if ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus); ok {
			return ws, nil
		}
		return 0, fmt.Errorf("supervisor: %w", werr)
	}
	// The record comes once the tree has ended: what is left of the
	// supervisor is its exit, reaped off the command's time.
	reaping.Add(1)
	go func() {
		defer reaping.Done()
		_ = p.cmd.Wait()
		p.closeHostEnd()
	}()
	return ws, err
}

// reaping counts the supervisors whose command has ended and whose exit
// is still being reaped (Settle waits for them).
var reaping sync.WaitGroup

func (p *Process) closeHostEnd() {
	if p.hostEnd != nil {
		p.hostEnd.Close()
	}
}
