package zygote

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/magenta-nvim/magenta/pkg/fdmsg"
)

const supported = true

// listenerFD is the descriptor the host hands the parent: its listening
// socket.
const listenerFD = 3

// initFD is the init's end of its socket to the parent, on which it
// receives its command (with the command's streams) and answers.
const initFD = 3

// forwarded are the signals the host may send a command.
var forwarded = map[syscall.Signal]bool{
	syscall.SIGTERM: true, syscall.SIGINT: true, syscall.SIGHUP: true, syscall.SIGQUIT: true,
}

// serve is the confinement parent: it accepts the host's connections on
// the inherited listener, one per command, until the listener fails
// (bwrap kills it with the host). One init is always started ahead, so
// a command does not wait for a program to start.
func serve() int {
	// Nothing may trace or read the parent's memory: it holds
	// capabilities (and commands cannot see it anyway).
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	f := os.NewFile(listenerFD, "listener")
	fl, err := net.FileListener(f)
	_ = f.Close()
	if err != nil {
		fmt.Fprintln(os.Stderr, "magenta confinement parent:", err)
		return 1
	}
	l, ok := fl.(*net.UnixListener)
	if !ok {
		fmt.Fprintln(os.Stderr, "magenta confinement parent: descriptor 3 is not a unix socket")
		return 1
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "magenta confinement parent:", err)
		return 1
	}
	s := newSpares(self)
	s.refill()
	for {
		c, err := l.AcceptUnix()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return 0
			}
			fmt.Fprintln(os.Stderr, "magenta confinement parent:", err)
			return 1
		}
		go handle(c, s)
	}
}

// spares holds the init started ahead of the next command.
type spares struct {
	self    string
	next    chan *initProc // holds at most the one started ahead
	mu      sync.Mutex
	filling chan struct{} // closed when the refill under way has ended; nil when none is
}

func newSpares(self string) *spares {
	return &spares{self: self, next: make(chan *initProc, 1)}
}

// take returns the init started ahead, waiting for one being started,
// or starts one. The next is started when this command has ended
// (refill): a program starting beside the command would slow it down,
// and the model's next command comes a model's answer later.
func (s *spares) take() (*initProc, error) {
	select {
	case p := <-s.next:
		return p, nil
	default:
	}
	s.mu.Lock()
	filling := s.filling
	s.mu.Unlock()
	if filling != nil {
		<-filling
		select {
		case p := <-s.next:
			return p, nil
		default:
		}
	}
	return startInit(s.self)
}

// refill starts an init ahead unless one is waiting or being started.
func (s *spares) refill() {
	s.mu.Lock()
	if s.filling != nil || len(s.next) > 0 {
		s.mu.Unlock()
		return
	}
	done := make(chan struct{})
	s.filling = done
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.filling = nil
		s.mu.Unlock()
		close(done)
	}()
	p, err := startInit(s.self)
	if err != nil {
		return // the next command starts its own, and says why not
	}
	select {
	case s.next <- p:
	default:
		p.kill()
	}
}

// initProc is a started init waiting for its command.
type initProc struct {
	proc *os.Process
	conn *net.UnixConn
}

// startInit starts an init in fresh mount, PID and IPC namespaces; it
// waits on its socket for a command.
func startInit(self string) (*initProc, error) {
	ours, theirs, err := fdmsg.Pair()
	if err != nil {
		return nil, err
	}
	defer theirs.Close()
	null, err := os.Open(os.DevNull)
	if err != nil {
		ours.Close()
		return nil, err
	}
	defer null.Close()
	proc, err := os.StartProcess(self, []string{self, argInit}, &os.ProcAttr{
		Dir: "/",
		// One P: an init's work is one sequence (the command's
		// environment comes with the command).
		Env:   []string{"GOMAXPROCS=1"},
		Files: []*os.File{null, null, null, theirs},
		Sys: &syscall.SysProcAttr{
			Cloneflags: syscall.CLONE_NEWNS | syscall.CLONE_NEWPID | syscall.CLONE_NEWIPC,
			Setsid:     true,
			Pdeathsig:  syscall.SIGKILL,
		},
	})
	if err != nil {
		ours.Close()
		return nil, fmt.Errorf("starting a command's init: %w", err)
	}
	conn, err := fdmsg.Conn(ours)
	if err != nil {
		_ = proc.Kill()
		_, _ = proc.Wait()
		return nil, err
	}
	return &initProc{proc: proc, conn: conn}, nil
}

func (p *initProc) kill() {
	_ = p.proc.Kill()
	_, _ = p.proc.Wait()
	p.conn.Close()
}

// handle runs one command for the host and reports how it ended.
func handle(c *net.UnixConn, s *spares) {
	defer c.Close()
	var req request
	files, err := receive(c, &req)
	if err != nil {
		_ = send(c, reply{Error: err.Error()})
		return
	}
	defer closeAll(files)
	if err := req.validate(len(files)); err != nil {
		_ = send(c, reply{Error: err.Error()})
		return
	}
	ini, err := s.take()
	// The next init starts once this command has ended: starting beside
	// it would take a core from it (git status uses both).
	defer s.refill()
	if err != nil {
		_ = send(c, reply{Error: err.Error()})
		return
	}
	defer ini.conn.Close()
	var r reply
	err = send(ini.conn, req, files...)
	if err == nil {
		var extra []*os.File
		extra, err = receive(ini.conn, &r)
		closeAll(extra)
	}
	closeAll(files)
	if err != nil || r.Error != "" || !r.Started {
		ini.kill()
		why := r.Error
		if why == "" {
			why = fmt.Sprintf("the command's init did not start it (%v)", err)
		}
		_ = send(c, reply{Error: "the sandbox could not start the command: " + why})
		return
	}
	if err := send(c, reply{Started: true}); err != nil {
		ini.kill()
		return
	}
	// The host going away (the command aborted, the host killed) takes
	// the command with it: the init, pid 1 of the command's PID
	// namespace, takes every process there.
	go func() {
		for {
			var ctl control
			extra, err := receive(c, &ctl)
			closeAll(extra)
			if err != nil {
				_ = ini.proc.Kill()
				return
			}
			if sig := syscall.Signal(ctl.Signal); forwarded[sig] {
				_ = ini.proc.Signal(sig)
			}
		}
	}()
	st, _ := ini.proc.Wait()
	code := exitCode(st)
	_ = send(c, reply{Exit: &code})
}

func (r request) validate(nfiles int) error {
	switch {
	case nfiles != streams:
		return fmt.Errorf("a request carries %d descriptors, not %d", nfiles, streams)
	case len(r.Argv) == 0 || r.Argv[0] == "":
		return errors.New("a request without a command")
	case !filepath.IsAbs(r.Cwd):
		return fmt.Errorf("working directory %q is not absolute", r.Cwd)
	}
	if _, err := parseOps(r.Ops); err != nil {
		return err
	}
	return nil
}

// exitCode is a process's status as a shell reports it: its exit code,
// or 128 plus the signal that ended it.
func exitCode(st *os.ProcessState) int {
	if st == nil {
		return 1
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return st.ExitCode()
}
