package procsup

import (
	"encoding/binary"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Linux constants the syscall package lacks.
const (
	prSetChildSubreaper = 36         // PR_SET_CHILD_SUBREAPER
	wAll                = 0x40000000 // __WALL: also reap clone children
)

// parentPollEvery is how often the host is checked for once the death
// signal can no longer tell.
const parentPollEvery = time.Second

// statusFD is the descriptor the host reads the command's status from.
const statusFD = 3

// Status records on statusFD: statusExit + 4-byte little-endian wait
// status, or statusStartError + message.
const (
	statusExit       = 'S'
	statusStartError = 'E'
)

// supervise runs argv under supervision and returns the supervisor's
// exit code. spec is the value of envVar: "<host pid>,<grace in ms>"
// (and specTerminal), or "<host pid>"+specSpare for a spare supervisor,
// which waits for its command from the host (spare_linux.go).
func supervise(spec string, argv []string) int {
	if pid, ok := strings.CutSuffix(spec, specSpare); ok {
		return serveSpare(pid)
	}
	hostPid, grace, terminal, ok := parseSpec(spec)
	report := os.NewFile(statusFD, "status")
	if !ok || len(argv) == 0 {
		writeStartError(report, "bad supervisor invocation")
		return 2
	}
	env := make([]string, 0, len(os.Environ()))
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, envVar+"=") {
			env = append(env, kv)
		}
	}
	return run(job{hostPid: hostPid, grace: grace, terminal: terminal, argv: argv, env: env, report: report})
}

// job is one command to supervise: how it was asked for (the command
// line and environment of a supervisor started for it, or a spare's
// request).
type job struct {
	hostPid  int
	grace    time.Duration
	terminal bool
	argv     []string
	env      []string
	dir      string // "": the supervisor's own
	report   *os.File
	// hostGone, when not nil, is closed when the host is known dead
	// (a spare's socket reached its end).
	hostGone <-chan struct{}
}

// run supervises j and returns the supervisor's exit code.
func run(j job) int {
	hostPid, grace, report := j.hostPid, j.grace, j.report
	sigs := make(chan os.Signal, 16)
	signal.Notify(sigs, syscall.SIGCHLD, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	// Without the subreaper bit orphans go to init and escape; the
	// command still runs, its own group is still terminated.
	_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
	if os.Getppid() != hostPid {
		// The host died before we could notice through the death signal.
		writeStartError(report, "host exited")
		return 1
	}
	path := j.argv[0]
	if !strings.ContainsRune(path, '/') {
		if p, err := lookPath(path, j.env); err == nil {
			path = p
		}
	}
	sys := &syscall.SysProcAttr{Setpgid: true}
	if j.terminal {
		// Session leader with the terminal on its stdin as controlling
		// terminal: its own process group, the terminal's foreground one.
		sys = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	}
	proc, err := os.StartProcess(path, j.argv, &os.ProcAttr{
		Dir:   j.dir,
		Env:   j.env,
		Files: []*os.File{os.Stdin, os.Stdout, os.Stderr},
		Sys:   sys,
	})
	if err != nil {
		writeStartError(report, err.Error())
		return 1
	}
	r := &reaper{child: proc.Pid}
	// parentPoll is set once the death signal has been spent on the end
	// of the host's forking thread: the host's death is then noticed by
	// polling for a new parent.
	var parentPoll <-chan time.Time
	hostGone := j.hostGone
	for !r.done {
		select {
		case sig := <-sigs:
			switch sig {
			case syscall.SIGCHLD:
			case syscall.SIGHUP:
				// The death signal also fires when the host's forking
				// thread ends while the host lives on: only a new parent
				// means the host is gone.
				if os.Getppid() != hostPid {
					r.killTree(grace)
				} else if parentPoll == nil {
					t := time.NewTicker(parentPollEvery)
					defer t.Stop()
					parentPoll = t.C
				}
			default: // SIGTERM, SIGINT: the host ends the command.
				r.killTree(grace)
			}
		case <-parentPoll:
			if os.Getppid() != hostPid {
				r.killTree(grace)
			}
		case <-hostGone:
			hostGone = nil
			r.killTree(grace)
		}
		r.reap()
	}
	// The command ended: whatever it left running goes too.
	r.killTree(grace)
	status := r.status
	var rec [5]byte
	rec[0] = statusExit
	binary.LittleEndian.PutUint32(rec[1:], uint32(status))
	_, _ = report.Write(rec[:])
	// Closed now, the host reads the end of the record without waiting
	// for this process to exit.
	_ = report.Close()
	if status.Exited() {
		return status.ExitStatus()
	}
	return 128 + int(status.Signal())
}

func writeStartError(report *os.File, msg string) {
	_, _ = report.Write(append([]byte{statusStartError}, msg...))
}

// specTerminal ends the spec of a command run under a pseudo-terminal
// (StartTerminal); specSpare follows the host's pid in the spec of a
// spare supervisor.
const (
	specTerminal = ",tty"
	specSpare    = ",spare"
)

func parseSpec(spec string) (hostPid int, grace time.Duration, terminal, ok bool) {
	spec, terminal = strings.CutSuffix(spec, specTerminal)
	p, g, found := strings.Cut(spec, ",")
	pid, err1 := strconv.Atoi(p)
	ms, err2 := strconv.Atoi(g)
	if !found || err1 != nil || err2 != nil || pid <= 0 || ms < 0 {
		return 0, 0, false, false
	}
	return pid, time.Duration(ms) * time.Millisecond, terminal, true
}

// lookPath finds name in env's PATH (the command's, not the host's).
func lookPath(name string, env []string) (string, error) {
	path := "/usr/local/bin:/usr/bin:/bin"
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for dir := range strings.SplitSeq(path, ":") {
		if dir == "" {
			dir = "."
		}
		p := dir + "/" + name
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", os.ErrNotExist
}
