package procsup

import (
	"net"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/magenta-nvim/magenta/pkg/fdmsg"
)

// A spare supervisor is started before it is needed and waits, idle, for
// the command it is to supervise: starting a Go program costs several
// milliseconds (its runtime and its page faults), which every command
// paid when its supervisor was started for it. The host keeps one spare
// per supervisor executable (spares), started when a command has ended,
// so the next command asks a program that is already running.
//
// The spare is the host's child from the start, with the same death
// signal, process group and subreaper bit as a supervisor started for
// the command; it gets the command's standard files and status
// descriptor over a Unix socket (package fdmsg: one packet, SCM_RIGHTS),
// with the command line, environment, directory and grace period
// (spareRequest). The host keeps its end of the socket until the command
// has ended: the spare reading the end of it means the host died,
// however it died, and the tree is ended as on the death signal. An idle
// spare exits on the same signs.

// spareFD is the spare's end of its socket.
const spareFD = 3

// spareRequestMax bounds a request (command line and environment). A
// larger one, or one the socket's buffer cannot hold, is not sent: the
// command gets a supervisor started for it.
const spareRequestMax = 1 << 20

// spareFiles are the descriptors a request carries: stdin, stdout,
// stderr and the status pipe.
const spareFiles = 4

// spareRequest is the command a spare supervises.
type spareRequest struct {
	Argv     []string `json:"argv"`
	Env      []string `json:"env"`
	Dir      string   `json:"dir"`
	GraceMs  int64    `json:"grace_ms"`
	Terminal bool     `json:"terminal"`
}

// serveSpare is a spare supervisor's main: it waits for its command,
// supervises it and returns the exit code. hostPid is from its spec.
func serveSpare(hostPid string) int {
	pid, err := strconv.Atoi(hostPid)
	if err != nil || pid <= 0 {
		return 2
	}
	// What Go does once, at a process's first start of a child, is done
	// now, while idle: whether pidfds work (it starts a child to see).
	_, _ = os.FindProcess(os.Getpid())
	// The death signal also fires when the host's forking thread ends:
	// while idle, only a new parent means the host is gone.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	go func() {
		for range hup {
			if os.Getppid() != pid {
				syscall.Exit(1)
			}
		}
	}()
	conn, err := fdmsg.Conn(os.NewFile(spareFD, "spare"))
	if err != nil {
		return 1
	}
	var req spareRequest
	files, err := fdmsg.Receive(conn, &req, spareRequestMax, spareFiles)
	if err != nil || len(files) != spareFiles || len(req.Argv) == 0 {
		// The host went away, or spoke nonsense: nothing runs, and the
		// host is told so when it gave a status pipe.
		if err == nil && len(files) == spareFiles {
			writeStartError(files[3], "spare supervisor: a request without a command")
		}
		fdmsg.CloseAll(files)
		return 1
	}
	signal.Stop(hup)
	report := files[3]
	for i, f := range files[:3] {
		if err := syscall.Dup3(int(f.Fd()), i, 0); err != nil {
			writeStartError(report, "spare supervisor: "+err.Error())
			return 1
		}
		f.Close()
	}
	gone := make(chan struct{})
	go func() {
		// The host sends nothing more: a read returns only at the end
		// of the socket, its death.
		var b [1]byte
		for {
			if _, err := conn.Read(b[:]); err != nil {
				close(gone)
				return
			}
		}
	}()
	return run(job{
		hostPid:  pid,
		grace:    time.Duration(req.GraceMs) * time.Millisecond,
		terminal: req.Terminal,
		argv:     req.Argv,
		env:      req.Env,
		dir:      req.Dir,
		report:   report,
		hostGone: gone,
	})
}

// spare is an idle supervisor on the host's side.
type spare struct {
	cmd  *exec.Cmd
	conn *net.UnixConn // the host's end of its socket
}

// spares holds, per executable, at most one idle supervisor and the one
// being started.
var spares = struct {
	sync.Mutex
	slots map[string]*spareSlot
}{slots: map[string]*spareSlot{}}

type spareSlot struct {
	idle *spare
	// starting is closed when the spare being started is idle (or
	// failed); nil when none is.
	starting chan struct{}
}

// takeSpare returns exe's idle spare, or nil when there is none. A spare
// being started is waited for: starting another process beside it would
// only make both slower.
func takeSpare(exe string) *spare {
	spares.Lock()
	defer spares.Unlock()
	slot := spares.slots[exe]
	if slot == nil {
		return nil
	}
	if slot.idle == nil && slot.starting != nil {
		wait := slot.starting
		spares.Unlock()
		<-wait
		spares.Lock()
	}
	sp := slot.idle
	slot.idle = nil
	return sp
}

// refillSpare starts exe's next spare unless one is idle or starting. It
// is called when a command has ended, not when it starts: a Go program
// starting beside the command would take the CPU the command needs.
func refillSpare(exe string) {
	spares.Lock()
	defer spares.Unlock()
	slot := spares.slots[exe]
	if slot == nil {
		slot = &spareSlot{}
		spares.slots[exe] = slot
	}
	if slot.idle != nil || slot.starting != nil {
		return
	}
	done := make(chan struct{})
	slot.starting = done
	go func() {
		next, err := startSpare(exe)
		spares.Lock()
		defer spares.Unlock()
		if err == nil {
			slot.idle = next
		}
		slot.starting = nil
		close(done)
	}()
}

// Settle waits until no spare is being started and every supervisor
// whose command has ended has been reaped: what the host then holds is
// its steady state, one idle spare (and its socket) per executable. For
// callers that count descriptors or processes (tests).
func Settle() {
	spares.Lock()
	var starting []chan struct{}
	for _, slot := range spares.slots {
		if slot.starting != nil {
			starting = append(starting, slot.starting)
		}
	}
	spares.Unlock()
	for _, c := range starting {
		<-c
	}
	reaping.Wait()
}

// startSpare starts an idle supervisor from exe.
func startSpare(exe string) (*spare, error) {
	host, child, err := fdmsg.Pair()
	if err != nil {
		return nil, err
	}
	defer child.Close()
	conn, err := fdmsg.Conn(host)
	if err != nil {
		return nil, err
	}
	cmd := &exec.Cmd{
		Path: exe,
		Args: []string{exe},
		Dir:  "/", // it holds no directory of the user's while idle
		// Only the switch: the command's environment comes with it, and
		// the host's (API keys among it) is nobody else's business. One
		// P: the supervisor's work is one sequence, and with two its
		// wake-up started a second thread (~0.6 ms of each command's
		// time, in a trace).
		Env:         []string{envVar + "=" + strconv.Itoa(os.Getpid()) + specSpare, "GOMAXPROCS=1"},
		ExtraFiles:  []*os.File{child}, // fd 3 = spareFD
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGHUP},
	}
	if err := cmd.Start(); err != nil {
		conn.Close()
		return nil, err
	}
	return &spare{cmd: cmd, conn: conn}, nil
}

// discard ends a spare that could not take its command.
func (sp *spare) discard() {
	sp.conn.Close()
	_ = sp.cmd.Process.Kill()
	_ = sp.cmd.Wait()
}

// run hands cmd to the spare. Its standard files must be *os.File or nil
// (the caller checks: spareable).
func (sp *spare) run(cmd *exec.Cmd, grace time.Duration, terminal bool) (*Process, error) {
	dir := cmd.Dir
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, err
		}
		dir = wd
	}
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	var devnull *os.File
	files := [3]*os.File{}
	for i, v := range []any{cmd.Stdin, cmd.Stdout, cmd.Stderr} {
		f, _ := v.(*os.File)
		if f == nil {
			if devnull == nil {
				var err error
				if devnull, err = os.OpenFile(os.DevNull, os.O_RDWR, 0); err != nil {
					return nil, err
				}
				defer devnull.Close()
			}
			f = devnull
		}
		files[i] = f
	}
	statusR, statusW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer statusW.Close()
	req := spareRequest{Argv: append([]string{cmd.Path}, cmd.Args[1:]...), Env: env, Dir: dir,
		GraceMs: grace.Milliseconds(), Terminal: terminal}
	if err := fdmsg.Send(sp.conn, req, spareRequestMax, files[0], files[1], files[2], statusW); err != nil {
		statusR.Close()
		return nil, err
	}
	return &Process{Pid: sp.cmd.Process.Pid, cmd: sp.cmd, status: statusR, hostEnd: sp.conn, exe: sp.cmd.Path}, nil
}

// spareable reports whether cmd's standard files can be handed to a
// spare: files or nothing (exec.Cmd's copying goroutines for other
// readers and writers exist only for a child it starts itself).
func spareable(cmd *exec.Cmd) bool {
	for _, v := range []any{cmd.Stdin, cmd.Stdout, cmd.Stderr} {
		if v == nil {
			continue
		}
		if f, ok := v.(*os.File); !ok || f == nil {
			return false
		}
	}
	return len(cmd.ExtraFiles) == 0 && cmd.SysProcAttr == nil && len(cmd.Args) > 0
}
