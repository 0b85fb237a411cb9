package remoteagent

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// deadline bounds every wait of these tests for a condition.
const deadline = 10 * time.Second

// lockedBuffer is a bytes.Buffer safe for concurrent use.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// agentProc is an agent running as a subprocess (the test binary with
// AgentFlag) and the Client on its channel.
type agentProc struct {
	cmd    *exec.Cmd
	client *Client
	stdin  *os.File // the write end of the agent's stdin, as the Client has it
	stderr *lockedBuffer
	exited chan struct{} // closed once the process was waited for
	state  *os.ProcessState

	mu      sync.Mutex
	markers []string // every marker handed out, for the cleanup
}

// startProc starts the test binary as an agent (env is added to its
// environment), with stdin a pipe and stdout the returned read end. At
// cleanup its stdin is closed (the Client's Close), it must exit (else it
// is killed, and the test fails), and what its commands left is killed
// (and the test fails).
func startProc(t *testing.T, env ...string) (*agentProc, *os.File) {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe, AgentFlag)
	// Under -race an exiting program waits 1 s for late reports
	// (atexit_sleep_ms): not the agent, which exits at every test's end.
	gorace := strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")
	cmd.Env = append(append(os.Environ(), "GORACE="+gorace), env...)
	inR, stdin, err := os.Pipe()
	require.NoError(t, err)
	outR, outW, err := os.Pipe()
	require.NoError(t, err)
	a := &agentProc{cmd: cmd, stdin: stdin, stderr: &lockedBuffer{}, exited: make(chan struct{})}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, a.stderr
	require.NoError(t, cmd.Start())
	inR.Close()
	outW.Close()
	go func() {
		_ = cmd.Wait()
		a.state = cmd.ProcessState
		close(a.exited)
	}()
	t.Cleanup(func() {
		if a.client != nil {
			_ = a.client.Close()
		} else {
			_ = stdin.Close()
		}
		select {
		case <-a.exited:
		case <-time.After(deadline):
			t.Errorf("the agent did not exit within %v of its stdin's end", deadline)
			_ = cmd.Process.Kill()
			<-a.exited
		}
		outR.Close()
		if strings.Contains(a.stderr.String(), "DATA RACE") {
			t.Errorf("the agent reported a data race:\n%s", a.stderr.String())
		}
		a.mu.Lock()
		markers := a.markers
		a.mu.Unlock()
		for _, m := range markers {
			killAll(t, markedPids(m))
		}
	})
	return a, outR
}

// startAgent starts an agent (env added to its environment) and a
// Client on it; both end at cleanup.
func startAgent(t *testing.T, env ...string) *agentProc {
	t.Helper()
	a, outR := startProc(t, env...)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	client, err := NewClient(ctx, outR, a.stdin)
	require.NoError(t, err, "agent stderr: %s", a.stderr.String())
	a.client = client
	return a
}

// newMarker is a fresh marker, whose processes are killed at cleanup.
func (a *agentProc) newMarker(t *testing.T) string {
	t.Helper()
	m, err := newTestMarker()
	require.NoError(t, err)
	a.mu.Lock()
	a.markers = append(a.markers, m)
	a.mu.Unlock()
	return m
}

// waitExit waits for the agent process to exit and returns its state.
func (a *agentProc) waitExit(t *testing.T) *os.ProcessState {
	t.Helper()
	select {
	case <-a.exited:
		return a.state
	case <-time.After(deadline):
		t.Fatalf("the agent did not exit within %v; stderr: %s", deadline, a.stderr.String())
		return nil
	}
}

// bash is the argv that runs script as the host's commands are run.
func bash(script string) []string {
	return []string{"bash", "--noprofile", "--norc", "-c", script}
}

// running is a command handed to the agent, its output read into
// buffers (or the writers given) until the Client closes it.
type running struct {
	cmd              *Command
	stdout, stderr   *lockedBuffer
	outDone, errDone chan struct{}
}

// start hands req to a's agent (filling in Marker and Dir when empty)
// with its output read into buffers.
func (a *agentProc) start(t *testing.T, req Request) *running {
	t.Helper()
	r, err := a.tryStart(t, req)
	require.NoError(t, err)
	return r
}

// tryStart is start returning Start's error; it may be called from any
// goroutine.
func (a *agentProc) tryStart(t *testing.T, req Request) (*running, error) {
	r := &running{stdout: &lockedBuffer{}, stderr: &lockedBuffer{}}
	cmd, err := a.tryStartTo(t, req, r.stdout, r.stderr, &r.outDone, &r.errDone)
	r.cmd = cmd
	return r, err
}

// startTo is start with the output copied to outSink and errSink; the
// channels are closed when each reached EOF.
func (a *agentProc) startTo(t *testing.T, req Request, outSink, errSink io.Writer, outDone, errDone *chan struct{}) *Command {
	t.Helper()
	cmd, err := a.tryStartTo(t, req, outSink, errSink, outDone, errDone)
	require.NoError(t, err)
	return cmd
}

func (a *agentProc) tryStartTo(t *testing.T, req Request, outSink, errSink io.Writer, outDone, errDone *chan struct{}) (*Command, error) {
	if req.Marker == "" {
		m, err := newTestMarker()
		if err != nil {
			return nil, err
		}
		a.mu.Lock()
		a.markers = append(a.markers, m)
		a.mu.Unlock()
		req.Marker = m
	}
	if req.Dir == "" {
		req.Dir = "/"
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeFiles(outR, outW)
		return nil, err
	}
	cmd, err := a.client.Start(req, outW, errW)
	// The Client has copies: ours are closed so EOF comes when it is done.
	closeFiles(outW, errW)
	if err != nil {
		closeFiles(outR, errR)
		return nil, err
	}
	*outDone, *errDone = copyUntilEOF(outR, outSink), copyUntilEOF(errR, errSink)
	return cmd, nil
}

// copyUntilEOF copies r to w on a goroutine; the channel is closed at EOF.
func copyUntilEOF(r *os.File, w io.Writer) chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer r.Close()
		_, _ = io.Copy(w, r)
	}()
	return done
}

// waitCmd waits, bounded, for cmd's status and for both its outputs'
// EOF.
func waitCmd(t *testing.T, cmd *Command, outDone, errDone <-chan struct{}) syscall.WaitStatus {
	t.Helper()
	type result struct {
		ws  syscall.WaitStatus
		err error
	}
	ch := make(chan result, 1)
	go func() {
		ws, err := cmd.Wait()
		ch <- result{ws, err}
	}()
	var res result
	timer := time.NewTimer(deadline)
	defer timer.Stop()
	select {
	case res = <-ch:
	case <-timer.C:
		t.Fatalf("Wait did not return within %v", deadline)
	}
	require.NoError(t, res.err)
	for _, done := range []<-chan struct{}{outDone, errDone} {
		select {
		case <-done:
		case <-timer.C:
			t.Fatalf("the command's output did not end within %v of its status", deadline)
		}
	}
	return res.ws
}

// wait waits for r's status and output.
func (r *running) wait(t *testing.T) (syscall.WaitStatus, string, string) {
	t.Helper()
	ws := waitCmd(t, r.cmd, r.outDone, r.errDone)
	return ws, r.stdout.String(), r.stderr.String()
}

// procs lists the processes (but this one) for which match, given the
// process's cmdline and environ, is true. Processes that vanish or
// cannot be read (zombies read empty) are skipped.
func procs(match func(cmdline, environ []byte) bool) []int {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	self := os.Getpid()
	var pids []int
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil || pid == self {
			continue
		}
		cmdline, _ := os.ReadFile("/proc/" + name + "/cmdline")
		environ, _ := os.ReadFile("/proc/" + name + "/environ")
		if match(cmdline, environ) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// sleeps lists the live processes running `sleep arg`.
func sleeps(arg string) []int {
	want := []byte("sleep\x00" + arg + "\x00")
	return procs(func(cmdline, _ []byte) bool { return bytes.Contains(cmdline, want) })
}

// markedPids lists the live processes carrying marker.
func markedPids(marker string) []int {
	want := []byte(CallMarker + "=" + marker)
	return procs(func(_, environ []byte) bool {
		for _, kv := range bytes.Split(environ, []byte{0}) {
			if bytes.Equal(kv, want) {
				return true
			}
		}
		return false
	})
}

// killAll SIGKILLs pids, reporting that they were left running.
func killAll(t *testing.T, pids []int) {
	t.Helper()
	for _, p := range pids {
		t.Errorf("process %d was left running; killed", p)
		_ = syscall.Kill(p, syscall.SIGKILL)
	}
}

// killSleepsAtCleanup kills, at cleanup, what still runs `sleep arg`
// (reporting it: each test ends its own).
func killSleepsAtCleanup(t *testing.T, args ...string) {
	t.Cleanup(func() {
		for _, arg := range args {
			killAll(t, sleeps(arg))
		}
	})
}

// requireGone waits until list returns nothing.
func requireGone(t *testing.T, what string, list func() []int) {
	t.Helper()
	require.Eventually(t, func() bool { return len(list()) == 0 }, deadline, 10*time.Millisecond,
		"%s still running after %v: %v", what, deadline, list())
}

// killSleeps kills what runs `sleep arg` (expected: left on purpose)
// and waits until it is gone.
func killSleeps(t *testing.T, arg string) {
	t.Helper()
	for _, p := range sleeps(arg) {
		_ = syscall.Kill(p, syscall.SIGKILL)
	}
	requireGone(t, "sleep "+arg, func() []int { return sleeps(arg) })
}

// raceEnabled: the test binary (and so the agent) was built with -race.
var raceEnabled bool

// newTestMarker is a fresh random marker.
func newTestMarker() (string, error) {
	var id [8]byte
	if _, err := rand.Read(id[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(id[:]), nil
}
