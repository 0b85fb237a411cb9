package localshell

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

const (
	// DefaultLogRoot is where logs go when Options.LogRoot is empty.
	DefaultLogRoot = "/tmp/magenta"
	// DefaultMaxTimeout caps per-call timeouts when Options.MaxTimeout is zero.
	DefaultMaxTimeout = 10 * time.Minute
	// drainTimeout bounds reading what is left in the pipes once the
	// group has been terminated (a process outside the group, e.g. one
	// that called setsid, may still hold them open).
	drainTimeout = 500 * time.Millisecond
)

// Options configure a Shell.
type Options struct {
	// LogRoot holds the per-call logs; default DefaultLogRoot.
	LogRoot string
	// MaxTimeout caps per-call timeouts; default DefaultMaxTimeout.
	MaxTimeout time.Duration
	// Cwd is the working directory of calls that set none (and the base
	// of relative ones); empty means the host process's.
	Cwd string
	// Env is the base environment, hardened before use; nil means
	// os.Environ() at New.
	Env []string
}

// Shell runs commands on the local machine with bash. It is safe for
// concurrent use.
type Shell struct {
	logRoot    string
	maxTimeout time.Duration
	cwd        string
	env        []string
}

var _ capabilities.Shell = (*Shell)(nil)

// New returns a Shell with opts' defaults filled in.
func New(opts Options) *Shell {
	s := &Shell{logRoot: opts.LogRoot, maxTimeout: opts.MaxTimeout, cwd: opts.Cwd}
	if s.logRoot == "" {
		s.logRoot = DefaultLogRoot
	}
	if s.maxTimeout <= 0 {
		s.maxTimeout = DefaultMaxTimeout
	}
	env := opts.Env
	if env == nil {
		env = os.Environ()
	}
	s.env = hardenEnv(env)
	return s
}

// Execute runs command with `bash --noprofile --norc -c`; see
// capabilities.Shell and the package documentation.
func (s *Shell) Execute(ctx context.Context, command string, opts capabilities.ExecOptions) (*capabilities.ExecResult, error) {
	start := time.Now()
	path, err := logPath(s.logRoot, opts.ThreadID, opts.RequestID)
	if err != nil {
		return nil, err
	}
	log, err := openLog(path, command)
	if err != nil {
		return nil, err
	}
	res := &capabilities.ExecResult{LogPath: path}
	if ctx.Err() != nil {
		res.ExitCode, res.Cancelled = -1, true
		res.Duration = time.Since(start)
		_ = log.close("not started (cancelled)")
		return res, nil
	}

	cmd := exec.Command("bash", "--noprofile", "--norc", "-c", command)
	cmd.Dir = s.dir(opts.Cwd)
	cmd.Env = s.env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// cmd.Stdin stays nil: the child reads /dev/null.
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, startFailed(log, err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, startFailed(log, err)
	}
	growPipe(outW)
	growPipe(errW)
	cmd.Stdout, cmd.Stderr = outW, errW
	err = cmd.Start()
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return nil, startFailed(log, err)
	}
	pgid := cmd.Process.Pid

	proc := newProcessor(log, opts.OnOutput)
	chunks := make(chan chunk, 4)
	go readPipe(outR, capabilities.Stdout, chunks)
	go readPipe(errR, capabilities.Stderr, chunks)
	procDone := make(chan struct{})
	go func() { proc.run(chunks); close(procDone) }()
	waitDone := make(chan struct{})
	go func() { _ = cmd.Wait(); close(waitDone) }()

	timer := time.NewTimer(s.timeout(opts.Timeout))
	defer timer.Stop()
	select {
	case <-waitDone:
	case <-timer.C:
		res.TimedOut = true
	case <-ctx.Done():
		res.Cancelled = true
	}
	if res.TimedOut || res.Cancelled {
		terminateGroup(pgid)
		<-waitDone
	}
	// The command has ended: whatever it left running in its group
	// (background jobs) is terminated too, then the pipes are drained.
	terminateGroup(pgid)
	drain := time.NewTimer(drainTimeout)
	select {
	case <-procDone:
	case <-drain.C:
		now := time.Now()
		_ = outR.SetReadDeadline(now)
		_ = errR.SetReadDeadline(now)
		<-procDone
	}
	drain.Stop()
	outR.Close()
	errR.Close()

	proc.fill(res)
	var last string
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		res.ExitCode, res.Signal = -1, signalName(ws.Signal())
		last = "signal " + res.Signal
	} else {
		res.ExitCode = cmd.ProcessState.ExitCode()
		last = fmt.Sprintf("exit %d", res.ExitCode)
	}
	res.Duration = time.Since(start)
	last += fmt.Sprintf(" after %.3fs", res.Duration.Seconds())
	switch {
	case res.TimedOut:
		last += " (timed out)"
	case res.Cancelled:
		last += " (cancelled)"
	}
	// The command ran: a log that could not be completed (disk full) does
	// not turn its result into an error.
	_ = log.close(last)
	return res, nil
}

func startFailed(log *logFile, err error) error {
	err = fmt.Errorf("bash: %w", err)
	if cerr := log.close("start error: " + err.Error()); cerr != nil {
		err = errors.Join(err, fmt.Errorf("bash log: %w", cerr))
	}
	return err
}

func (s *Shell) dir(cwd string) string {
	switch {
	case cwd == "":
		return s.cwd
	case filepath.IsAbs(cwd) || s.cwd == "":
		return cwd
	default:
		return filepath.Join(s.cwd, cwd)
	}
}

func (s *Shell) timeout(t time.Duration) time.Duration {
	if t <= 0 {
		t = capabilities.ShellDefaultTimeout
	}
	return min(t, s.maxTimeout)
}
