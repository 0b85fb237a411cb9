package localshell

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/procsup"
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
	// LogRoot holds the per-call logs; default DefaultLogRoot. A root
	// that exists but is a symlink, not a directory, or not the user's is
	// not used: <LogRoot>-<uid> is, and Shell.Warning says so.
	LogRoot string
	// MaxTimeout caps per-call timeouts; default DefaultMaxTimeout.
	MaxTimeout time.Duration
	// InputGrace is how long after the user's last keystroke an
	// interactive command's timeout cannot end it; default
	// capabilities.TerminalInputGrace.
	InputGrace time.Duration
	// Cwd is the working directory of calls that set none (and the base
	// of relative ones); empty means the host process's.
	Cwd string
	// Env is the base environment, hardened before use; nil means
	// os.Environ() at New.
	Env []string
	// Supervisor is the executable started as each call's process
	// supervisor (package procsup); empty means magenta-supervisor beside
	// this program (procsup.Beside), else this program itself
	// (procsup.Self) when it called procsup.MainIfSupervisor, else none.
	Supervisor string
	// Unsupervised runs commands without supervisor: only their process
	// group is terminated, so a process that calls setsid escapes.
	Unsupervised bool
	// LogMaxBytes caps each log (default DefaultLogMaxBytes): past it,
	// the first 3/4 and the last 1/4 are kept, with a marker between
	// saying how many bytes were dropped.
	LogMaxBytes int64
	// LogQuota caps the bytes under LogRoot/threads (default
	// DefaultLogQuota); the oldest threads' files go first.
	LogQuota int64
	// LogMaxAge is how long a thread's files are kept after their last
	// change (default DefaultLogMaxAge).
	LogMaxAge time.Duration
	// Launch starts each command; nil means bash on this machine
	// (`bash --noprofile --norc -c`). See Launcher.
	Launch Launcher
	// Confiner runs the commands whose ExecOptions.Sandbox is set; nil:
	// such commands fail (they never run unconfined instead).
	Confiner Confiner
	// LaunchInteractive starts the commands whose ExecOptions.Interactive
	// is set, their stdin, stdout and stderr the slave of a PTY; nil
	// means Launch. Package docker's adds `-it` to `docker exec`.
	LaunchInteractive Launcher
	// OpenPTY opens the pseudo-terminal of interactive commands; nil
	// means a real one (github.com/creack/pty). When it fails the command
	// runs with pipes and ExecResult.NotInteractive says why.
	OpenPTY OpenPTY
}

// Shell runs commands on the local machine with bash. It is safe for
// concurrent use.
type Shell struct {
	logRoot    string
	logRootErr error
	warning    string
	maxTimeout time.Duration
	inputGrace time.Duration
	cwd        string
	env        []string
	supervisor string
	retention  *retention
	launch     Launcher
	confiner   Confiner
	// Interactive commands: their launcher (nil: launch), PTY opener
	// and environment (env with a real terminal type).
	launchInteractive Launcher
	openPTY           OpenPTY
	ttyEnv            []string
}

var _ capabilities.Shell = (*Shell)(nil)

// New returns a Shell with opts' defaults filled in. It settles the log
// root, kills what a previous host that died left running (see
// procsup.Sweep), and starts pruning old logs in the background.
func New(opts Options) *Shell {
	s := &Shell{maxTimeout: opts.MaxTimeout, inputGrace: opts.InputGrace, cwd: opts.Cwd, supervisor: opts.Supervisor, launch: opts.Launch, confiner: opts.Confiner,
		launchInteractive: opts.LaunchInteractive, openPTY: opts.OpenPTY}
	if s.launch == nil {
		s.launch = bashLaunch
	}
	if s.openPTY == nil {
		s.openPTY = openPTY
	}
	root := opts.LogRoot
	if root == "" {
		root = DefaultLogRoot
	}
	s.logRoot, s.warning, s.logRootErr = settleLogRoot(root)
	if s.maxTimeout <= 0 {
		s.maxTimeout = DefaultMaxTimeout
	}
	if s.inputGrace <= 0 {
		s.inputGrace = capabilities.TerminalInputGrace
	}
	env := opts.Env
	if env == nil {
		env = os.Environ()
	}
	s.env = hardenEnv(env)
	s.ttyEnv = terminalEnv(s.env)
	switch {
	case opts.Unsupervised:
		s.supervisor = ""
	case s.supervisor != "":
	case procsup.Beside() != "":
		// The small supervisor binary: it starts in a fraction of the
		// time the host takes to re-execute.
		s.supervisor = procsup.Beside()
	case procsup.Available():
		s.supervisor = procsup.Self
	}
	s.retention = newRetention(opts.LogMaxBytes, opts.LogQuota, opts.LogMaxAge)
	if s.logRootErr == nil {
		procsup.Sweep(s.recordDir())
		s.retention.pruneSoon(s.logRoot)
	}
	return s
}

// LogRoot is the directory the logs go to (the configured one, or its
// per-user fallback).
func (s *Shell) LogRoot() string { return s.logRoot }

// LogRootUsable reports whether LogRoot passed its checks (the
// configured root or its fallback); when it did not, LogRoot is the
// configured path, which may be planted, and must grant nothing.
func (s *Shell) LogRootUsable() bool { return s.logRootErr == nil }

// Warning is a message for the user about the log root (a fallback was
// used, or none is usable), or "".
func (s *Shell) Warning() string { return s.warning }

// recordDir holds the supervisors' records (procsup.Track).
func (s *Shell) recordDir() string { return filepath.Join(s.logRoot, "procs") }

// Execute runs command with `bash --noprofile --norc -c`; see
// capabilities.Shell and the package documentation.
func (s *Shell) Execute(ctx context.Context, command string, opts capabilities.ExecOptions) (*capabilities.ExecResult, error) {
	start := time.Now()
	if s.logRootErr != nil {
		return nil, s.logRootErr
	}
	path, err := logPath(s.logRoot, opts.ThreadID, opts.RequestID)
	if err != nil {
		return nil, err
	}
	log, err := openLog(path, command, s.retention.maxBytes)
	if err != nil {
		return nil, err
	}
	res := &capabilities.ExecResult{LogPath: path}
	if ctx.Err() != nil {
		res.ExitCode, res.Cancelled = -1, true
		res.Duration = time.Since(start)
		s.closeLog(log, "not started (cancelled)", res)
		return res, nil
	}

	launcher, interactive := s.launch, opts.Interactive
	if interactive && s.launchInteractive != nil {
		launcher = s.launchInteractive
	}
	pipeLauncher := s.launch
	if opts.Sandbox {
		// A confined interactive command gets a PTY of its own, which
		// stays its controlling terminal inside the sandbox.
		launcher, pipeLauncher = s.confinedLaunch, s.confinedLaunch
		if interactive {
			launcher = s.confinedTerminalLaunch
		}
	}
	var ptyMaster, ptySlave *os.File
	if interactive {
		if ptyMaster, ptySlave, err = s.openPTY(); err != nil {
			res.NotInteractive = "no pseudo-terminal (" + err.Error() + "): it ran with pipes, without input"
			interactive, launcher = false, pipeLauncher
		}
	}
	env := s.env
	if interactive {
		env = s.ttyEnv
	}
	launch, err := launcher(command, s.dir(opts.Cwd), env)
	if err != nil {
		closeAll(ptyMaster, ptySlave)
		return nil, startFailed(log, err)
	}
	var out outputs
	if interactive {
		out, err = newTerminalOutputs(ptyMaster, ptySlave, launch.Cmd)
	} else {
		out, err = newPipeOutputs(launch.Cmd)
	}
	if err != nil {
		return nil, startFailed(log, err)
	}
	run, err := s.startLaunch(launch, interactive)
	out.started()
	if err != nil {
		out.close()
		return nil, startFailed(log, err)
	}
	res.Interactive = interactive
	timeout := s.timeout(opts.Timeout)
	if opts.OnStart != nil {
		opts.OnStart(timeout)
	}

	proc := newProcessor(log, opts.OnOutput, opts.OnTail)
	chunks := make(chan chunk, 4)
	out.read(chunks)
	procDone := make(chan struct{})
	go func() { proc.run(chunks); close(procDone) }()
	if t := out.terminal(); t != nil && opts.OnTerminal != nil {
		opts.OnTerminal(t)
	}
	waitDone := make(chan struct{})
	var ws syscall.WaitStatus
	var runErr error
	go func() { ws, runErr = run.wait(); close(waitDone) }()

	timerStart := time.Now()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
wait:
	for {
		select {
		case <-waitDone:
		case <-timer.C:
			// A person typing into the command is not cut off: the
			// deadline moves to InputGrace after their last keystroke.
			if t := out.terminal(); t != nil {
				end := capabilities.TerminalDeadline(timerStart, timeout, t.LastInput(), s.inputGrace)
				if left := time.Until(end); left > 0 {
					timer.Reset(left)
					continue wait
				}
			}
			res.TimedOut = true
		case <-ctx.Done():
			res.Cancelled = true
		}
		break
	}
	if res.TimedOut || res.Cancelled {
		if t := out.terminal(); t != nil {
			res.WaitingForInput = t.WaitingForInput()
		}
		endRemote(launch, waitDone)
		select {
		case <-waitDone: // it ended where it ran; finish ends the rest
		default:
			run.terminate(waitDone)
		}
	}
	// The command has ended: whatever it left running is terminated too,
	// then the output is drained.
	run.finish()
	drain := time.NewTimer(drainTimeout)
	select {
	case <-procDone:
	case <-drain.C:
		out.cutShort()
		<-procDone
	}
	drain.Stop()
	out.close()
	if runErr != nil {
		return nil, startFailed(log, runErr)
	}

	proc.fill(res)
	if opts.Sandbox {
		res.Confined = true
	}
	var last string
	if ws.Signaled() {
		res.ExitCode, res.Signal = -1, SignalName(ws.Signal())
		last = "signal " + res.Signal
	} else {
		res.ExitCode = ws.ExitStatus()
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
	// not turn its result into an error; the result says so.
	s.closeLog(log, last, res)
	if res.Confined {
		res.Blocked = s.blockedBy(res)
	}
	if launch.After != nil {
		res.Disarmed = launch.After()
	}
	return res, nil
}

// closeLog closes the log and notes in res what became of it.
func (s *Shell) closeLog(log *logFile, last string, res *capabilities.ExecResult) {
	sum := log.close(last)
	res.LogDroppedBytes = sum.dropped
	if sum.err != nil {
		res.LogError = sum.err.Error()
	}
	s.retention.logged(s.logRoot, sum.size)
}

func startFailed(log *logFile, err error) error {
	err = fmt.Errorf("bash: %w", err)
	if cerr := log.close("start error: " + err.Error()).err; cerr != nil {
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
