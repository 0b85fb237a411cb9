package remoteagent

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"
)

// drainBound bounds the wait for a command's pipes to close after its
// first process exited and the sweep began: a process that keeps them
// open past its SIGKILL (stuck in the kernel) does not hold the status.
const drainBound = maxGrace + stuckBound

// MainIfAgent serves as the agent, and exits, when the program was
// started with AgentFlag alone; otherwise it returns.
func MainIfAgent() {
	if len(os.Args) != 2 || os.Args[1] != AgentFlag {
		return
	}
	os.Exit(Serve(os.Stdin, os.Stdout))
}

// agent is one serving agent.
type agent struct {
	out  *frameWriter
	self int

	mu   sync.Mutex
	cmds map[uint32]*command
	// stopping: endAll has begun; a command started now is killed at
	// once (endAll does not know of it).
	stopping bool
	// sweeps are the sweeps still running (they outlive their command's
	// status); Serve waits for them before it exits.
	sweeps sync.WaitGroup
}

// command is one running command.
type command struct {
	pgid   int
	marker string
	grace  time.Duration
	done   chan struct{} // closed when its first process was reaped
}

// Serve says hello on out, then runs what in asks until in ends or the
// agent is told to stop (SIGTERM, SIGHUP, SIGINT), and then ends every
// command it runs. It returns the process's exit status.
func Serve(in io.Reader, out io.Writer) int {
	// Caught, not ignored: a write to a closed stdout returns EPIPE
	// instead of killing the agent before it ends its commands, and the
	// commands get SIGPIPE's default action back on exec (an ignored
	// signal would stay ignored in them: `yes | head` would never end).
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT)

	a := &agent{out: &frameWriter{w: out}, self: os.Getpid(), cmds: map[uint32]*command{}}
	if err := a.out.send(kindHello, 0, []byte(Version)); err != nil {
		return 1
	}
	ended := make(chan error, 1)
	go func() { ended <- a.serve(in) }()
	code := 0
	select {
	case err := <-ended:
		if err != nil && !errors.Is(err, io.EOF) {
			fmt.Fprintln(os.Stderr, "magenta remote agent:", err)
			code = 1
		}
	case <-stop:
	}
	a.endAll()
	return code
}

func (a *agent) serve(in io.Reader) error {
	fr := &frameReader{r: in}
	for {
		f, err := fr.next()
		if err != nil {
			return err
		}
		switch f.kind {
		case kindStart:
			var req Request
			if err := json.Unmarshal(f.payload, &req); err != nil || len(req.Argv) == 0 || req.Marker == "" {
				return fmt.Errorf("%w: a start request that does not parse", errFrame)
			}
			a.start(f.id, req)
		case kindSignal:
			if len(f.payload) != 1 {
				return fmt.Errorf("%w: a signal of %d bytes", errFrame, len(f.payload))
			}
			a.signal(f.id, syscall.Signal(f.payload[0]))
		default:
			return fmt.Errorf("%w: kind %q", errFrame, f.kind)
		}
	}
}

// start runs req as command id. A failure to start is reported as the
// command's output and status, never as an error of the agent.
func (a *agent) start(id uint32, req Request) {
	// The directory first: a failed chdir in the child is reported as a
	// failed exec of the program, which would read as a missing bash.
	if info, err := os.Stat(req.Dir); req.NoDirMessage != "" && (err != nil || !info.IsDir()) {
		a.fail(id, req.NoDirExit, req.NoDirMessage+req.Dir)
		return
	}
	cmd := exec.Command(req.Argv[0], req.Argv[1:]...)
	cmd.Dir = req.Dir
	cmd.Env = commandEnv(os.Environ(), req)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	outR, outW, err := os.Pipe()
	if err != nil {
		a.fail(id, 126, err.Error())
		return
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeFiles(outR, outW)
		a.fail(id, 126, err.Error())
		return
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	err = cmd.Start()
	closeFiles(outW, errW)
	if err != nil {
		closeFiles(outR, errR)
		a.fail(id, 127, fmt.Sprintf("%s: %v", req.Argv[0], err))
		return
	}
	c := &command{pgid: cmd.Process.Pid, marker: req.Marker, grace: req.grace(), done: make(chan struct{})}
	a.mu.Lock()
	stopping := a.stopping
	if !stopping {
		a.cmds[id] = c
	}
	a.mu.Unlock()
	if stopping {
		// Read while the agent stops: ended before it runs anything,
		// and its status goes out if the channel still takes it.
		_ = syscall.Kill(-c.pgid, syscall.SIGKILL)
	}

	var readers sync.WaitGroup
	readers.Add(2)
	go a.forward(id, kindStdout, outR, &readers)
	go a.forward(id, kindStderr, errR, &readers)
	go func() {
		_ = cmd.Wait()
		ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
		// What it left running is ended (which also closes the pipes it
		// holds), then the output drained, then the status sent. The
		// sweep is counted before done is closed, which endAll waits
		// for before it waits for the sweeps.
		_ = syscall.Kill(-c.pgid, syscall.SIGTERM)
		if !stopping { // else endAll may be waiting for the sweeps already
			a.sweeps.Add(1)
			go func() { defer a.sweeps.Done(); sweep(c.marker, a.self, c.grace) }()
		}
		close(c.done)
		drained := make(chan struct{})
		go func() { readers.Wait(); close(drained) }()
		t := time.NewTimer(drainBound)
		select {
		case <-drained:
		case <-t.C:
			closeFiles(outR, errR) // the readers return
			<-drained
		}
		t.Stop()
		a.mu.Lock()
		delete(a.cmds, id)
		a.mu.Unlock()
		var st [4]byte
		binary.BigEndian.PutUint32(st[:], uint32(ws))
		_ = a.out.send(kindExit, id, st[:])
	}()
}

// forward sends what r yields as frames of kind for id until r ends.
func (a *agent) forward(id uint32, kind byte, r *os.File, wg *sync.WaitGroup) {
	defer wg.Done()
	defer r.Close()
	buf := make([]byte, readSize)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			_ = a.out.send(kind, id, buf[:n]) // the host gone: the command is ended by endAll
		}
		if err != nil {
			return
		}
	}
}

// fail reports a command that could not start: msg on its stderr, then
// the exit status code.
func (a *agent) fail(id uint32, code int, msg string) {
	_ = a.out.send(kindStderr, id, []byte(msg+"\n"))
	var st [4]byte
	binary.BigEndian.PutUint32(st[:], uint32(code&0xff)<<8) // a wait status for exit(code)
	_ = a.out.send(kindExit, id, st[:])
}

// signal sends sig to command id's group and its marked processes.
func (a *agent) signal(id uint32, sig syscall.Signal) {
	a.mu.Lock()
	c := a.cmds[id]
	a.mu.Unlock()
	if c == nil {
		return // it ended already; its sweep is under way
	}
	_ = syscall.Kill(-c.pgid, sig)
	for _, p := range marked(markerEntry(c.marker), a.self).pids {
		_ = syscall.Kill(p, sig)
	}
}

// endAll ends every running command (SIGTERM to each, as a timeout
// does; their sweeps escalate to SIGKILL) and waits for them and their
// sweeps, bounded.
func (a *agent) endAll() {
	a.mu.Lock()
	a.stopping = true
	var running []*command
	for _, c := range a.cmds {
		running = append(running, c)
	}
	a.mu.Unlock()
	for _, c := range running {
		_ = syscall.Kill(-c.pgid, syscall.SIGTERM)
		a.sweeps.Add(1)
		go func() { defer a.sweeps.Done(); sweep(c.marker, a.self, c.grace) }()
	}
	done := make(chan struct{})
	go func() {
		for _, c := range running {
			<-c.done
		}
		a.sweeps.Wait()
		close(done)
	}()
	t := time.NewTimer(drainBound)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}

// commandEnv is the agent's environment minus req.Unset, with req.Env
// and the marker set.
func commandEnv(base []string, req Request) []string {
	drop := map[string]bool{CallMarker: true}
	for _, n := range req.Unset {
		drop[n] = true
	}
	for _, kv := range req.Env {
		if n, _, ok := strings.Cut(kv, "="); ok {
			drop[n] = true
		}
	}
	env := make([]string, 0, len(base)+len(req.Env)+1)
	for _, kv := range base {
		n, _, _ := strings.Cut(kv, "=")
		if !drop[n] {
			env = append(env, kv)
		}
	}
	env = append(env, req.Env...)
	return append(env, markerEntry(req.Marker))
}

func markerEntry(marker string) string { return CallMarker + "=" + marker }

func closeFiles(files ...*os.File) {
	for _, f := range files {
		_ = f.Close()
	}
}
