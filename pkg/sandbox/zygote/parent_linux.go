package zygote

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"time"
)

// Options configure a Parent.
type Options struct {
	// Executable is the program that runs as the parent and the inits:
	// one whose main calls MainIfZygote (magenta-supervisor, or the host
	// itself).
	Executable string
	// Args returns the bubblewrap invocation that starts the parent
	// running self with args (sandbox.Policy.ParentArgs).
	Args func(self string, args ...string) ([]string, error)
	// CheckOps returns the mounts of a trial command, run once the
	// parent has started (sandbox.Policy.CommandOps in the workspace):
	// the parent is used only once one ran.
	CheckOps func() ([]string, error)
	// Log receives what the parent writes and why it is not used.
	Log func(msg string)
}

// CheckTimeout bounds the trial command that decides whether the parent
// is used.
const CheckTimeout = 10 * time.Second

// Parent is the host's side of a confinement parent: it starts the
// parent on first use, in the background, and runs commands through it
// once a trial command ran. Until then, or when it cannot start, Ready
// says no and the caller confines the command by bubblewrap alone. A
// parent that dies is started again at the next use; one whose trial
// failed is not tried again.
type Parent struct {
	opts Options

	mu       sync.Mutex
	state    parentState
	sock     string
	why      string // the last failure, for the health check
	proc     *os.Process
	listener *net.UnixListener
	dir      string
	done     chan struct{} // closed when the running parent has exited
}

type parentState int

const (
	stateIdle parentState = iota
	stateStarting
	stateReady
	stateFailed
	stateClosed
)

// New returns a Parent; nothing starts until Start or Ready.
func New(opts Options) *Parent { return &Parent{opts: opts} }

// Start starts the parent in the background when it is not running.
func (p *Parent) Start() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.startLocked()
}

func (p *Parent) startLocked() {
	if p.state != stateIdle {
		return
	}
	if !supported || p.opts.Executable == "" {
		p.state, p.why = stateFailed, "no program to run it (magenta-supervisor missing)"
		return
	}
	p.state = stateStarting
	go p.run()
}

// Ready reports whether commands can go through the parent now; the
// first call starts it.
func (p *Parent) Ready() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.startLocked()
	return p.state == stateReady
}

// Command is one command running through the parent.
type Command struct {
	c    *net.UnixConn
	once sync.Once
}

// Run starts argv (found on env's PATH) in cwd with env, the given
// streams (nil: the null device) and the command's mounts
// (sandbox.Policy.CommandOps), and returns once it runs. It fails when
// the parent is not ready, and the command did not start then.
func (p *Parent) Run(argv, env []string, cwd string, ops []string, stdin, stdout, stderr *os.File) (*Command, error) {
	p.mu.Lock()
	ready, sock := p.state == stateReady, p.sock
	p.mu.Unlock()
	if !ready {
		return nil, fmt.Errorf("%w: it is not running", ErrNotTaken)
	}
	return runOn(sock, argv, env, cwd, ops, stdin, stdout, stderr)
}

func runOn(sock string, argv, env []string, cwd string, ops []string, stdin, stdout, stderr *os.File) (*Command, error) {
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	defer null.Close()
	streams := []*os.File{stdin, stdout, stderr}
	for i, f := range streams {
		if f == nil {
			streams[i] = null
		}
	}
	c, err := net.DialUnix("unixpacket", nil, &net.UnixAddr{Name: sock, Net: "unixpacket"})
	if err != nil {
		return nil, fmt.Errorf("%w: it does not answer: %v", ErrNotTaken, err)
	}
	// One packet: it reached the parent whole or not at all.
	if err := send(c, request{Argv: argv, Env: env, Cwd: cwd, Ops: ops}, streams...); err != nil {
		c.Close()
		return nil, fmt.Errorf("%w: %v", ErrNotTaken, err)
	}
	var r reply
	extra, err := receive(c, &r)
	closeAll(extra)
	switch {
	case errors.Is(err, syscall.ECONNRESET):
		// A unix socket closed with data unread in its queue, or never
		// accepted, resets its peer: the parent (or the init holding
		// its socket) died before it read the request, so nothing ran.
		// Having read it and died gives end of file instead.
		c.Close()
		return nil, fmt.Errorf("%w: it died before reading the request: %v", ErrNotTaken, err)
	case err != nil:
		c.Close()
		return nil, fmt.Errorf("the confinement parent stopped answering: %w", err)
	case r.Error != "":
		c.Close()
		return nil, errors.New(r.Error)
	case !r.Started:
		c.Close()
		return nil, errors.New("the confinement parent did not start the command")
	}
	return &Command{c: c}, nil
}

// Wait waits for the command and returns its status: exited with its
// code, or 128 plus the signal that ended it, as a shell says. A parent
// that stops answering is an error.
func (c *Command) Wait() (syscall.WaitStatus, error) {
	defer c.Kill()
	for {
		var r reply
		extra, err := receive(c.c, &r)
		closeAll(extra)
		switch {
		case err != nil:
			return 0, fmt.Errorf("the confinement parent stopped answering: %w", err)
		case r.Error != "":
			return 0, errors.New(r.Error)
		case r.Exit != nil:
			return syscall.WaitStatus(uint32(*r.Exit&0xff) << 8), nil
		}
	}
}

// Signal sends sig to every process of the command (SIGTERM, SIGINT,
// SIGHUP or SIGQUIT).
func (c *Command) Signal(sig syscall.Signal) { _ = send(c.c, control{Signal: int(sig)}) }

// Kill ends the command and everything it started: the parent kills its
// PID namespace when the connection closes.
func (c *Command) Kill() { c.once.Do(func() { c.c.Close() }) }

// Status says whether commands are confined through the parent, and if
// not, why: for :checkhealth.
func (p *Parent) Status() (ready bool, why string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch p.state {
	case stateReady:
		return true, ""
	case stateStarting:
		return false, "starting"
	case stateIdle:
		if p.why != "" {
			return false, p.why
		}
		return false, "not started yet (it starts at the first confined command)"
	}
	return false, p.why
}

// Close stops the parent and everything running through it, and waits
// for it to exit.
func (p *Parent) Close() {
	p.mu.Lock()
	p.state = stateClosed
	proc, done := p.proc, p.done
	p.mu.Unlock()
	if proc != nil {
		_ = proc.Kill()
		<-done
	}
}

// run starts the parent and waits for it, on a thread of its own: the
// parent's parent-death signal fires when the thread that started it
// exits, so that thread must live as long as the parent.
func (p *Parent) run() {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cmd, l, dir, err := p.launch()
	if err != nil {
		p.fail(err)
		return
	}
	done := make(chan struct{})
	p.mu.Lock()
	if p.state == stateClosed {
		p.mu.Unlock()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		l.Close()
		os.RemoveAll(dir)
		return
	}
	p.proc, p.listener, p.dir, p.done = cmd.Process, l, dir, done
	p.sock = filepath.Join(dir, "socket")
	p.mu.Unlock()
	go p.check()
	err = cmd.Wait()
	l.Close()
	os.RemoveAll(dir)
	close(done)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.proc = nil
	switch p.state {
	case stateClosed, stateFailed:
	default:
		p.state, p.why = stateIdle, fmt.Sprintf("the confinement parent exited (%v); it starts again at the next confined command", err)
		p.log(p.why)
	}
}

// launch makes the socket in a private directory and starts bwrap with
// the parent in it.
func (p *Parent) launch() (*exec.Cmd, *net.UnixListener, string, error) {
	dir, err := os.MkdirTemp(runtimeDir(), "magenta-sandbox-parent-")
	if err != nil {
		return nil, nil, "", err
	}
	l, err := net.ListenUnix("unixpacket", &net.UnixAddr{Name: filepath.Join(dir, "socket"), Net: "unixpacket"})
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, "", err
	}
	lf, err := l.File()
	if err != nil {
		l.Close()
		os.RemoveAll(dir)
		return nil, nil, "", err
	}
	defer lf.Close()
	argv, err := p.opts.Args(p.opts.Executable, argServe)
	if err != nil {
		l.Close()
		os.RemoveAll(dir)
		return nil, nil, "", err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.ExtraFiles = []*os.File{lf}
	cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Stderr = &lineLog{log: p.log}
	if err := cmd.Start(); err != nil {
		l.Close()
		os.RemoveAll(dir)
		return nil, nil, "", err
	}
	return cmd, l, dir, nil
}

// check runs a trial command through the parent; the parent is used only
// once it ran.
func (p *Parent) check() {
	err := p.trial()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.state != stateStarting {
		return
	}
	if err != nil {
		p.state, p.why = stateFailed, "its trial command failed: "+err.Error()
		p.log("the sandbox confines each command by bubblewrap alone: " + p.why)
		if p.proc != nil {
			_ = p.proc.Kill()
		}
		return
	}
	p.state, p.why = stateReady, ""
}

func (p *Parent) trial() error {
	ops, err := p.opts.CheckOps()
	if err != nil {
		return err
	}
	p.mu.Lock()
	sock := p.sock
	p.mu.Unlock()
	cmd, err := runOn(sock, []string{"true"}, []string{"PATH=/usr/local/bin:/usr/bin:/bin"}, "/", ops, nil, nil, nil)
	if err != nil {
		return err
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-done:
		case <-time.After(CheckTimeout):
			cmd.Kill()
		}
	}()
	ws, err := cmd.Wait()
	if err != nil {
		return err
	}
	if ws.ExitStatus() != 0 {
		return fmt.Errorf("true exited %d", ws.ExitStatus())
	}
	return nil
}

func (p *Parent) fail(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.state == stateClosed {
		return
	}
	p.state, p.why = stateFailed, "it could not start: "+err.Error()
	p.log("the sandbox confines each command by bubblewrap alone: " + p.why)
}

func (p *Parent) log(msg string) {
	if p.opts.Log != nil {
		p.opts.Log(msg)
	}
}

// runtimeDir is where the parent's socket directory goes: the user's
// runtime directory when there is one, else the temporary directory.
func runtimeDir() string {
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			return d
		}
	}
	return os.TempDir()
}

// lineLog logs what the parent (or bwrap) writes, a line at a time, the
// first maxLogLines of them.
type lineLog struct {
	log   func(string)
	buf   []byte
	lines int
}

const maxLogLines = 100

func (w *lineLog) Write(b []byte) (int, error) {
	w.buf = append(w.buf, b...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		if w.lines < maxLogLines && w.log != nil {
			w.log("confinement parent: " + string(w.buf[:i]))
		}
		w.lines++
		w.buf = w.buf[i+1:]
	}
	if len(w.buf) > 4096 {
		w.buf = w.buf[:0]
	}
	return len(b), nil
}
