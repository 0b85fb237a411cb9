package remoteagent

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// startRaceChild is set in the environment of the child process that
// runs TestStartWhileAgentDies's stress.
const startRaceChild = "MAGENTA_REMOTEAGENT_START_RACE_CHILD"

// TestStartWhileAgentDies: Start racing the end of the agent's channel
// (the agent killed while commands are being handed to it) returns an
// error or a Command that ends with LostStatus — and never crashes the
// host. The stress runs in a child process so that a panic is reported
// as this test's failure instead of ending the whole test binary.
func TestStartWhileAgentDies(t *testing.T) {
	if os.Getenv(startRaceChild) != "" {
		startWhileAgentDies(t)
		return
	}
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run=^TestStartWhileAgentDies$", "-test.count=1")
	cmd.Env = append(os.Environ(), startRaceChild+"=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Start())
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case err := <-waited:
		if err != nil || strings.Contains(out.String(), "panic:") {
			t.Errorf("the child failed (%v):\n%s", err, out.String())
		}
	case <-time.After(3 * deadline):
		_ = cmd.Process.Kill()
		<-waited
		t.Fatalf("the child did not end:\n%s", out.String())
	}
}

// startWhileAgentDies: goroutines hand commands to an agent that is
// stopped (SIGSTOP) until its stdin pipe is full, so that one Start is
// blocked writing and the others wait for the writer, each with its
// Command registered; then the agent is killed. Each Start must then
// return ErrClosed (or a Command that ends lost), whichever of Start's
// failed write and the Client's end of the channel comes first.
func startWhileAgentDies(t *testing.T) {
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	require.NoError(t, err)
	defer devnull.Close()
	for range 10 {
		a := startAgent(t)
		marker := a.newMarker(t)
		require.NoError(t, a.cmd.Process.Signal(syscall.SIGSTOP))
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var started []*Command
				for {
					cmd, err := a.client.Start(Request{Argv: []string{"true"}, Dir: "/", Marker: marker}, devnull, devnull)
					if err != nil {
						assert.ErrorIs(t, err, ErrClosed)
						break
					}
					started = append(started, cmd)
				}
				for _, cmd := range started {
					ws, _ := cmd.Wait()
					assert.True(t, cmd.Lost())
					assert.Equal(t, LostStatus, ws)
				}
			}()
		}
		require.Eventually(t, func() bool { return pipeFull(t, a.stdin) }, deadline, time.Millisecond)
		require.NoError(t, a.cmd.Process.Signal(syscall.SIGKILL))
		wg.Wait()
		a.waitExit(t)
	}
}

// pipeFull reports whether the pipe w writes to has no room for a
// start frame.
func pipeFull(t *testing.T, w *os.File) bool {
	rc, err := w.SyscallConn()
	require.NoError(t, err)
	var queued, size int
	var qerr, serr error
	require.NoError(t, rc.Control(func(fd uintptr) {
		queued, qerr = unix.IoctlGetInt(int(fd), unix.TIOCINQ)
		size, serr = unix.FcntlInt(fd, unix.F_GETPIPE_SZ, 0)
	}))
	require.NoError(t, qerr)
	require.NoError(t, serr)
	return size-queued < 200
}
