package procsup

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"
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
// descriptor over a Unix socket (SCM_RIGHTS), with the command line,
// environment, directory and grace period (spareRequest). The host keeps
// its end of the socket until the command has ended: the spare reading
// the end of it means the host died, however it died, and the tree is
// ended as on the death signal. An idle spare exits on the same signs.

// spareFD is the spare's end of its socket.
const spareFD = 3

// spareRequestMax bounds a request (command line and environment: Linux
// allows 2 MiB for both together at exec).
const spareRequestMax = 4 << 20

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
	req, files, err := receiveRequest(spareFD)
	if err != nil {
		// The host went away (or spoke nonsense): nothing to run.
		return 1
	}
	signal.Stop(hup)
	for i, f := range files[:3] {
		if err := syscall.Dup3(f, i, 0); err != nil {
			writeStartError(os.NewFile(uintptr(files[3]), "status"), "spare supervisor: "+err.Error())
			return 1
		}
		_ = syscall.Close(f)
	}
	gone := make(chan struct{})
	go func() {
		// The host writes nothing more: a read returns only at the end
		// of the socket, its death.
		var b [1]byte
		for {
			n, err := syscall.Read(spareFD, b[:])
			if n == 0 || (err != nil && err != syscall.EINTR) {
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
		report:   os.NewFile(uintptr(files[3]), "status"),
		hostGone: gone,
	})
}

// receiveRequest reads one request and its four descriptors (stdin,
// stdout, stderr, status) from the socket fd.
func receiveRequest(fd int) (spareRequest, [4]int, error) {
	var req spareRequest
	var files [4]int
	buf := make([]byte, 64<<10)
	oob := make([]byte, syscall.CmsgSpace(4*4))
	n, oobn, err := recvmsg(fd, buf, oob)
	if err != nil {
		return req, files, err
	}
	msgs, err := syscall.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		return req, files, errors.New("spare: no descriptors")
	}
	fds, err := syscall.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != 4 {
		return req, files, errors.New("spare: not four descriptors")
	}
	copy(files[:], fds)
	for n < 4 {
		m, err := readSome(fd, buf[n:])
		if err != nil {
			return req, files, err
		}
		n += m
	}
	size := int(binary.LittleEndian.Uint32(buf))
	if size > spareRequestMax {
		return req, files, errors.New("spare: request too large")
	}
	body := make([]byte, 0, size)
	body = append(body, buf[4:n]...)
	for len(body) < size {
		m, err := readSome(fd, body[len(body):size])
		if err != nil {
			return req, files, err
		}
		body = body[:len(body)+m]
	}
	if err := json.Unmarshal(body[:size], &req); err != nil || len(req.Argv) == 0 {
		return req, files, errors.New("spare: bad request")
	}
	return req, files, nil
}

func recvmsg(fd int, buf, oob []byte) (n, oobn int, err error) {
	for {
		n, oobn, _, _, err = syscall.Recvmsg(fd, buf, oob, syscall.MSG_CMSG_CLOEXEC)
		if err != syscall.EINTR {
			break
		}
	}
	if err == nil && n == 0 {
		err = errors.New("spare: host closed the socket")
	}
	return n, oobn, err
}

func readSome(fd int, buf []byte) (int, error) {
	for {
		n, err := syscall.Read(fd, buf)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return 0, err
		case n == 0:
			return 0, errors.New("spare: host closed the socket")
		}
		return n, nil
	}
}

// spare is an idle supervisor on the host's side.
type spare struct {
	cmd  *exec.Cmd
	sock *os.File // the host's end
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

// startSpare starts an idle supervisor from exe.
func startSpare(exe string) (*spare, error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	host, child := os.NewFile(uintptr(fds[0]), "spare"), os.NewFile(uintptr(fds[1]), "spare")
	defer child.Close()
	cmd := &exec.Cmd{
		Path: exe,
		Args: []string{exe},
		Dir:  "/", // it holds no directory of the user's while idle
		// Only the switch: the command's environment comes with it, and
		// the host's (API keys among it) is nobody else's business.
		Env:         []string{envVar + "=" + strconv.Itoa(os.Getpid()) + specSpare},
		ExtraFiles:  []*os.File{child}, // fd 3 = spareFD
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGHUP},
	}
	if err := cmd.Start(); err != nil {
		host.Close()
		return nil, err
	}
	return &spare{cmd: cmd, sock: host}, nil
}

// discard ends a spare that could not take its command.
func (sp *spare) discard() {
	sp.sock.Close()
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
	body, err := json.Marshal(spareRequest{Argv: append([]string{cmd.Path}, cmd.Args[1:]...), Env: env, Dir: dir,
		GraceMs: grace.Milliseconds(), Terminal: terminal})
	if err != nil {
		return nil, err
	}
	if len(body) > spareRequestMax {
		return nil, fmt.Errorf("command line and environment too large (%d bytes)", len(body))
	}
	var devnull *os.File
	files := [3]*os.File{}
	for i, v := range []any{cmd.Stdin, cmd.Stdout, cmd.Stderr} {
		f, _ := v.(*os.File)
		if f == nil {
			if devnull == nil {
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
	frame := binary.LittleEndian.AppendUint32(make([]byte, 0, 4+len(body)), uint32(len(body)))
	frame = append(frame, body...)
	// Fd sets each file blocking again, as exec does for a child's
	// standard files: the command must not see O_NONBLOCK.
	rights := syscall.UnixRights(int(files[0].Fd()), int(files[1].Fd()), int(files[2].Fd()), int(statusW.Fd()))
	sock := int(sp.sock.Fd())
	err = syscall.Sendmsg(sock, frame[:1], rights, nil, syscall.MSG_NOSIGNAL)
	for sent := 1; err == nil && sent < len(frame); {
		var n int
		n, err = syscall.SendmsgN(sock, frame[sent:], nil, nil, syscall.MSG_NOSIGNAL)
		sent += n
	}
	if err != nil {
		statusR.Close()
		return nil, err
	}
	return &Process{Pid: sp.cmd.Process.Pid, cmd: sp.cmd, status: statusR, hostEnd: sp.sock, exe: sp.cmd.Path}, nil
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
