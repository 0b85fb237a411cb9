package remoteagent

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOutputAndExitStatus(t *testing.T) {
	t.Parallel()
	a := startAgent(t)
	ws, out, errOut := a.start(t, Request{Argv: bash("echo hi; echo err >&2; exit 3")}).wait(t)
	assert.Equal(t, "hi\n", out)
	assert.Equal(t, "err\n", errOut)
	assert.True(t, ws.Exited())
	assert.Equal(t, 3, ws.ExitStatus())
}

func TestEnvUnsetMarker(t *testing.T) {
	t.Parallel()
	a := startAgent(t, "DROPME=1", "KEEPME=kept", "FOO=agent", CallMarker+"=the-agents-own")
	marker := a.newMarker(t)
	ws, out, errOut := a.start(t, Request{
		Argv:   bash(`echo "$FOO ${DROPME-unset} $` + CallMarker + ` $KEEPME"`),
		Env:    []string{"FOO=bar"},
		Unset:  []string{"DROPME"},
		Marker: marker,
	}).wait(t)
	assert.Equal(t, "bar unset "+marker+" kept\n", out)
	assert.Empty(t, errOut)
	assert.Equal(t, 0, ws.ExitStatus())

	// One entry each: a variable set by Env or the marker replaces the
	// agent's, never doubles it.
	r := a.start(t, Request{Argv: []string{"env"}, Env: []string{"FOO=bar"}, Marker: marker})
	ws, out, _ = r.wait(t)
	require.Equal(t, 0, ws.ExitStatus())
	count := map[string]int{}
	for _, kv := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		name, _, _ := strings.Cut(kv, "=")
		count[name]++
	}
	assert.Equal(t, 1, count["FOO"], "env:\n%s", out)
	assert.Equal(t, 1, count[CallMarker], "env:\n%s", out)
	assert.Contains(t, out, "\nFOO=bar\n")
	assert.Contains(t, out, CallMarker+"="+marker+"\n")
	assert.Contains(t, out, "DROPME=1\n", "only what Unset names is dropped")
}

func TestDir(t *testing.T) {
	t.Parallel()
	a := startAgent(t)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)

	ws, out, errOut := a.start(t, Request{Argv: bash("pwd; printenv PWD"), Dir: dir}).wait(t)
	assert.Equal(t, dir+"\n"+dir+"\n", out)
	assert.Empty(t, errOut)
	assert.Equal(t, 0, ws.ExitStatus())

	const msg = "magenta: cannot enter directory "
	for _, missing := range []string{filepath.Join(dir, "missing"), filepath.Join(dir, "a-file")} {
		if strings.HasSuffix(missing, "a-file") {
			require.NoError(t, os.WriteFile(missing, nil, 0o600))
		}
		ws, out, errOut = a.start(t, Request{Argv: bash("echo ran"), Dir: missing,
			NoDirExit: 211, NoDirMessage: msg}).wait(t)
		assert.Empty(t, out, "the command must not run")
		assert.Equal(t, msg+missing+"\n", errOut)
		assert.True(t, ws.Exited())
		assert.Equal(t, 211, ws.ExitStatus())
	}
}

func TestProgramNotFound(t *testing.T) {
	t.Parallel()
	a := startAgent(t)
	ws, out, errOut := a.start(t, Request{Argv: []string{"magenta-no-such-program-xyz", "arg"}}).wait(t)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "magenta-no-such-program-xyz")
	assert.True(t, strings.HasSuffix(errOut, "\n"), "stderr: %q", errOut)
	assert.True(t, ws.Exited())
	assert.Equal(t, 127, ws.ExitStatus())

	// The agent goes on serving.
	ws, out, _ = a.start(t, Request{Argv: bash("echo still")}).wait(t)
	assert.Equal(t, "still\n", out)
	assert.Equal(t, 0, ws.ExitStatus())
}

func TestConcurrentCommands(t *testing.T) {
	t.Parallel()
	a := startAgent(t)
	const n, lines, errLines = 20, 20000, 3000
	expect := func(prefix string, count int) string {
		var b strings.Builder
		for i := 1; i <= count; i++ {
			fmt.Fprintf(&b, "%s%d\n", prefix, i)
		}
		return b.String()
	}
	rs := make([]*running, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for k := range n {
		wg.Add(1)
		go func() { // Start from many goroutines at once too.
			defer wg.Done()
			script := fmt.Sprintf("seq -f 'o%d-%%g' 1 %d; seq -f 'e%d-%%g' 1 %d >&2; exit %d", k, lines, k, errLines, k)
			rs[k], errs[k] = a.tryStart(t, Request{Argv: bash(script)})
		}()
	}
	wg.Wait()
	for k, r := range rs {
		require.NoError(t, errs[k])
		ws, out, errOut := r.wait(t)
		// Compared whole: a mismatch would print two huge strings.
		assert.True(t, out == expect(fmt.Sprintf("o%d-", k), lines), "command %d: stdout wrong (%d bytes)", k, len(out))
		assert.True(t, errOut == expect(fmt.Sprintf("e%d-", k), errLines), "command %d: stderr wrong (%d bytes)", k, len(errOut))
		assert.Equal(t, k, ws.ExitStatus())
	}
}

// countingWriter counts what is written and whether it was all want.
type countingWriter struct {
	want  byte
	n     int64
	wrong int64
}

func (w *countingWriter) Write(p []byte) (int, error) {
	for _, b := range p {
		if b != w.want {
			w.wrong++
		}
	}
	w.n += int64(len(p))
	return len(p), nil
}

func TestLargeOutput(t *testing.T) {
	t.Parallel()
	a := startAgent(t)
	const size = 20_000_000
	sink, errs := &countingWriter{want: 'a'}, &lockedBuffer{}
	var outDone, errDone chan struct{}
	cmd := a.startTo(t, Request{Argv: bash(fmt.Sprintf(`head -c %d /dev/zero | tr '\0' a`, size))},
		sink, errs, &outDone, &errDone)
	ws := waitCmd(t, cmd, outDone, errDone)
	assert.Equal(t, 0, ws.ExitStatus())
	assert.Empty(t, errs.String())
	assert.Equal(t, int64(size), sink.n)
	assert.Zero(t, sink.wrong, "bytes other than 'a'")
}

func TestSignal(t *testing.T) {
	t.Parallel()
	killSleepsAtCleanup(t, "9981")
	a := startAgent(t)

	r := a.start(t, Request{Argv: bash(`trap 'echo got; exit 7' TERM; echo ready; while :; do sleep 0.05; done`)})
	require.Eventually(t, func() bool { return r.stdout.String() == "ready\n" }, deadline, 5*time.Millisecond)
	r.cmd.Signal(syscall.SIGTERM)
	ws, out, errOut := r.wait(t)
	assert.Equal(t, "ready\ngot\n", out)
	// bash reports its foreground sleep, killed by the same signal.
	assert.NotContains(t, errOut, "got")
	assert.True(t, ws.Exited(), "status %#x", ws)
	assert.Equal(t, 7, ws.ExitStatus())

	// The start frame is handled before the signal frame: the sleep runs
	// by the time the kill comes.
	r = a.start(t, Request{Argv: []string{"sleep", "9981"}})
	r.cmd.Kill()
	ws, out, errOut = r.wait(t)
	assert.Empty(t, out)
	assert.Empty(t, errOut)
	assert.True(t, ws.Signaled(), "status %#x", ws)
	assert.Equal(t, syscall.SIGKILL, ws.Signal())
	assert.False(t, r.cmd.Lost())
	requireGone(t, "sleep 9981", func() []int { return sleeps("9981") })

	// A signal to a command that has ended is dropped.
	r.cmd.Signal(syscall.SIGTERM)
	ws, out, _ = a.start(t, Request{Argv: bash("echo after")}).wait(t)
	assert.Equal(t, "after\n", out)
	assert.Equal(t, 0, ws.ExitStatus())
}

// TestSignalReachesSetsid: a signal goes to the marked processes too,
// which reaches what left the command's process group.
func TestSignalReachesSetsid(t *testing.T) {
	t.Parallel()
	killSleepsAtCleanup(t, "9982")
	a := startAgent(t)
	r := a.start(t, Request{Argv: bash(`setsid sleep 9982 >/dev/null 2>&1 & p=$!
until grep -q 9982 /proc/$p/cmdline 2>/dev/null; do sleep 0.01; done
echo ready; wait`)})
	require.Eventually(t, func() bool { return r.stdout.String() == "ready\n" }, deadline, 5*time.Millisecond)
	require.Len(t, sleeps("9982"), 1)
	r.cmd.Signal(syscall.SIGKILL)
	ws, out, _ := r.wait(t)
	assert.Equal(t, "ready\n", out)
	assert.True(t, ws.Signaled(), "status %#x", ws)
	requireGone(t, "the setsid'd sleep 9982", func() []int { return sleeps("9982") })
}

func TestSweepAfterExit(t *testing.T) {
	t.Parallel()
	killSleepsAtCleanup(t, "9977", "9976")
	a := startAgent(t)

	// Output redirected: the status does not wait for it; it is ended
	// after.
	ws, out, errOut := a.start(t, Request{Argv: bash(`setsid sleep 9977 >/dev/null 2>&1 & p=$!
until grep -q 9977 /proc/$p/cmdline 2>/dev/null; do sleep 0.01; done
echo $p`)}).wait(t)
	assert.Empty(t, errOut)
	assert.Equal(t, 0, ws.ExitStatus())
	pid, err := strconv.Atoi(strings.TrimSpace(out))
	require.NoError(t, err, "stdout %q", out)
	assert.Positive(t, pid)
	requireGone(t, "the setsid'd sleep 9977", func() []int { return sleeps("9977") })

	// Holding the command's stdout: the sweep ends it, then the output
	// ends and the status comes.
	ws, out, errOut = a.start(t, Request{Argv: bash(`setsid sleep 9976 & echo $!`)}).wait(t)
	assert.Empty(t, errOut)
	assert.Equal(t, 0, ws.ExitStatus())
	_, err = strconv.Atoi(strings.TrimSpace(out))
	require.NoError(t, err, "stdout %q", out)
	requireGone(t, "the setsid'd sleep 9976", func() []int { return sleeps("9976") })
}

// TestSweepEscalates: a process that ignores SIGTERM is killed after the
// grace period.
func TestSweepEscalates(t *testing.T) {
	t.Parallel()
	killSleepsAtCleanup(t, "9983")
	a := startAgent(t)
	ws, _, _ := a.start(t, Request{Argv: bash(`trap '' TERM; setsid sleep 9983 >/dev/null 2>&1 & p=$!
until grep -q 9983 /proc/$p/cmdline 2>/dev/null; do sleep 0.01; done`)}).wait(t)
	assert.Equal(t, 0, ws.ExitStatus())
	requireGone(t, "the TERM-proof sleep 9983", func() []int { return sleeps("9983") })
}

func TestCloseEndsCommands(t *testing.T) {
	t.Parallel()
	killSleepsAtCleanup(t, "9978", "9979")
	a := startAgent(t)
	r := a.start(t, Request{Argv: bash(`setsid sleep 9979 >/dev/null 2>&1 & p=$!
until grep -q 9979 /proc/$p/cmdline 2>/dev/null; do sleep 0.01; done
echo ready; sleep 9978`)})
	require.Eventually(t, func() bool {
		return r.stdout.String() == "ready\n" && len(sleeps("9978")) == 1
	}, deadline, 5*time.Millisecond)
	require.Len(t, sleeps("9979"), 1)

	require.NoError(t, a.client.Close())
	_, err := a.client.Start(Request{Argv: bash("true"), Dir: "/", Marker: a.newMarker(t)}, os.Stdout, os.Stderr)
	assert.ErrorIs(t, err, ErrClosed, "a Start after Close")

	requireGone(t, "sleep 9978", func() []int { return sleeps("9978") })
	requireGone(t, "the setsid'd sleep 9979", func() []int { return sleeps("9979") })
	st := a.waitExit(t)
	assert.Equal(t, 0, st.ExitCode(), "agent stderr: %s", a.stderr.String())

	ws, out, errOut := r.wait(t)
	assert.Equal(t, "ready\n", out)
	// The agent ends the command as a timeout does and sends its status
	// if its output ended before the agent exits (endAll waits for the
	// first process and the sweeps, not for the status): here it does,
	// but a busy machine may lose the race, and the command is then
	// reported lost. Either is one consistent answer.
	if r.cmd.Lost() {
		t.Logf("the agent exited before it sent the status")
		assert.Equal(t, LostStatus, ws, "status %#x", ws)
		assert.True(t, strings.HasSuffix(errOut, LostMessage+"\n"), "stderr %q", errOut)
	} else {
		assert.True(t, ws.Signaled(), "status %#x", ws)
		assert.Equal(t, syscall.SIGTERM, ws.Signal())
		assert.NotContains(t, errOut, LostMessage)
	}
	select {
	case <-a.client.Done():
	case <-time.After(deadline):
		t.Fatal("the Client's Done did not close")
	}
	assert.ErrorIs(t, a.client.Err(), ErrClosed)
}

// TestCloseLosesHeldCommand: a command whose output is held open by a
// process the agent cannot end (it dropped the marker and ignores
// SIGTERM) has no status when the agent exits: Wait returns LostStatus.
// (Not env -i: a process with an empty environment makes every sweep on
// the machine list for unsettledBound, slowing the other tests.)
func TestCloseLosesHeldCommand(t *testing.T) {
	t.Parallel()
	killSleepsAtCleanup(t, "9985")
	a := startAgent(t)
	r := a.start(t, Request{Argv: bash(`trap '' TERM; env -u ` + CallMarker + ` sleep 9985 &
until [ "$(sleep 0.01; ps -o args= -p $! 2>/dev/null)" = "sleep 9985" ]; do :; done
echo ready; wait`)})
	require.Eventually(t, func() bool {
		return r.stdout.String() == "ready\n" && len(sleeps("9985")) == 1
	}, deadline, 5*time.Millisecond)

	require.NoError(t, a.client.Close())
	// The sweep kills the (marked) bash; the unmarked sleep holds the
	// output until the test kills it.
	st := a.waitExit(t)
	assert.Equal(t, 0, st.ExitCode(), "agent stderr: %s", a.stderr.String())
	ws, out, errOut := r.wait(t)
	assert.Equal(t, "ready\n", out)
	assert.Equal(t, LostStatus, ws, "status %#x", ws)
	assert.Equal(t, LostMessage+"\n", errOut)
	assert.True(t, r.cmd.Lost())
	killSleeps(t, "9985")
}

func TestAgentKilled(t *testing.T) {
	t.Parallel()
	killSleepsAtCleanup(t, "9980")
	a := startAgent(t)
	marker := a.newMarker(t)
	r := a.start(t, Request{Argv: bash("echo ready; sleep 9980"), Marker: marker})
	require.Eventually(t, func() bool {
		return r.stdout.String() == "ready\n" && len(sleeps("9980")) == 1
	}, deadline, 5*time.Millisecond)

	require.NoError(t, a.cmd.Process.Signal(syscall.SIGKILL))
	ws, out, errOut := r.wait(t)
	assert.Equal(t, "ready\n", out)
	assert.Equal(t, LostStatus, ws, "status %#x", ws)
	assert.Equal(t, LostMessage+"\n", errOut)
	assert.True(t, r.cmd.Lost())
	select {
	case <-a.client.Done():
	case <-time.After(deadline):
		t.Fatal("the Client's Done did not close")
	}
	assert.ErrorIs(t, a.client.Err(), ErrClosed)

	outR, outW, err := os.Pipe()
	require.NoError(t, err)
	defer outR.Close()
	defer outW.Close()
	cmd, err := a.client.Start(Request{Argv: bash("true"), Dir: "/", Marker: a.newMarker(t)}, outW, outW)
	assert.Nil(t, cmd)
	assert.ErrorIs(t, err, ErrClosed)

	// Nothing ended what it ran: the host sweeps it (here, the test).
	st := a.waitExit(t)
	assert.False(t, st.Success())
	for _, p := range markedPids(marker) {
		_ = syscall.Kill(p, syscall.SIGKILL)
	}
	requireGone(t, "sleep 9980", func() []int { return sleeps("9980") })
}

func TestMalformedStream(t *testing.T) {
	t.Parallel()
	for name, garbage := range map[string][]byte{
		"text":          []byte("this is not a frame at all, it is text\n"),
		"unknown kind":  {'Z', 0, 0, 0, 1, 0, 0, 0, 0},
		"bad start":     append([]byte{kindStart, 0, 0, 0, 1, 0, 0, 0, 5}, "{bad}"...),
		"no argv":       append([]byte{kindStart, 0, 0, 0, 1, 0, 0, 0, 14}, `{"marker":"m"}`...),
		"long signal":   {kindSignal, 0, 0, 0, 1, 0, 0, 0, 2, 15, 15},
		"huge length":   {kindStart, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff},
		"over the max":  {kindStart, 0, 0, 0, 1, 0, 0x40, 0, 1},
		"truncated end": {kindStart, 0, 0, 0, 1, 0, 0, 0, 100, '{'},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			a := startAgent(t)
			_, err := a.stdin.Write(garbage)
			require.NoError(t, err)
			if name == "truncated end" {
				require.NoError(t, a.stdin.Close())
			}
			select {
			case <-a.client.Done():
			case <-time.After(deadline):
				t.Fatal("the Client's Done did not close")
			}
			assert.ErrorIs(t, a.client.Err(), ErrClosed)
			st := a.waitExit(t)
			assert.Equal(t, 1, st.ExitCode())
			assert.Contains(t, a.stderr.String(), "magenta remote agent:")
		})
	}
}

func TestNoHello(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, script string
		timeout      time.Duration
	}{
		{"banner", "echo 'Welcome to the machine, have a nice day'; cat", deadline},
		{"short banner", "echo hello; cat", 300 * time.Millisecond},
		{"other version", `printf 'H\0\0\0\0\0\0\0\017magenta-agent 0'; cat`, deadline},
		{"exits", "exit 0", deadline},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command("sh", "-c", tc.script)
			stdin, err := cmd.StdinPipe()
			require.NoError(t, err)
			outR, outW, err := os.Pipe()
			require.NoError(t, err)
			cmd.Stdout = outW
			require.NoError(t, cmd.Start())
			outW.Close()
			t.Cleanup(func() {
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
				outR.Close()
			})
			ctx, cancel := context.WithTimeout(context.Background(), tc.timeout)
			defer cancel()
			begin := time.Now()
			c, err := NewClient(ctx, outR, stdin)
			assert.Nil(t, c)
			assert.ErrorIs(t, err, ErrNoHello)
			assert.Less(t, time.Since(begin), deadline)
		})
	}
}

func TestClientErrors(t *testing.T) {
	t.Parallel()
	a := startAgent(t)
	f, err := os.Open(os.DevNull)
	require.NoError(t, err)
	defer f.Close()
	_, err = a.client.Start(Request{Argv: bash("true"), Dir: "/", Marker: a.newMarker(t)}, nil, f)
	assert.Error(t, err)
	_, err = a.client.Start(Request{Argv: bash("true"), Dir: "/", Marker: a.newMarker(t)}, f, nil)
	assert.Error(t, err)
	assert.NoError(t, a.client.Err())
	// The Client still serves.
	ws, out, _ := a.start(t, Request{Argv: bash("echo ok")}).wait(t)
	assert.Equal(t, "ok\n", out)
	assert.Equal(t, 0, ws.ExitStatus())
}

// TestAgentTerminated: an agent sent SIGTERM (or SIGHUP) ends what it
// runs, swept as after Close, and exits 0.
func TestAgentTerminated(t *testing.T) {
	t.Parallel()
	for sig, arg := range map[syscall.Signal]string{syscall.SIGTERM: "9986", syscall.SIGHUP: "9988"} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			killSleepsAtCleanup(t, arg)
			a := startAgent(t)
			r := a.start(t, Request{Argv: bash(`setsid sleep ` + arg + ` >/dev/null 2>&1 & p=$!
until grep -q ` + arg + ` /proc/$p/cmdline 2>/dev/null; do sleep 0.01; done
echo ready; wait`)})
			require.Eventually(t, func() bool { return r.stdout.String() == "ready\n" }, deadline, 5*time.Millisecond)
			require.NoError(t, a.cmd.Process.Signal(sig))
			st := a.waitExit(t)
			assert.Equal(t, 0, st.ExitCode(), "agent stderr: %s", a.stderr.String())
			requireGone(t, "sleep "+arg, func() []int { return sleeps(arg) })
			ws, _, _ := r.wait(t)
			assert.True(t, ws == LostStatus || ws.Signaled(), "status %#x", ws)
		})
	}
}

// TestStopSignalEndsLateCommands: the doc says an agent sent SIGTERM
// ends every command it runs before it exits. A command whose start
// frame is read while the agent is ending the others (endAll takes a
// sweep's time, its reader still serves stdin) is run too, and must be
// ended as well rather than left running after the agent exited.
func TestStopSignalEndsLateCommands(t *testing.T) {
	t.Parallel()
	killSleepsAtCleanup(t, "9987")
	a := startAgent(t)
	// Ignores SIGTERM (after saying so): the sweep needs its grace
	// period and SIGKILL to end it, so the agent's end takes that long.
	first := a.start(t, Request{Argv: bash(`trap 'echo term' TERM; echo ready; while :; do sleep 0.05; done`)})
	require.Eventually(t, func() bool { return first.stdout.String() == "ready\n" }, deadline, 5*time.Millisecond)
	require.NoError(t, a.cmd.Process.Signal(syscall.SIGTERM))
	// The agent has begun ending what it runs.
	require.Eventually(t, func() bool { return strings.Contains(first.stdout.String(), "term") }, deadline, time.Millisecond)

	late, err := a.tryStart(t, Request{Argv: []string{"sleep", "9987"}})
	if err != nil {
		assert.ErrorIs(t, err, ErrClosed)
	}
	a.waitExit(t)
	if err == nil {
		ws, _, _ := late.wait(t)
		t.Logf("late command: status %#x lost %v", uint32(ws), late.cmd.Lost())
	}
	assert.Empty(t, sleeps("9987"), "a command started while the agent was ending was left running after it exited")
	killSleeps(t, "9987")
}

// TestEndAllWaitsForSweepsWithoutRace: endAll waits on a.sweeps while a
// command's goroutine may still Add to it: the group's SIGTERM (sent
// before endAll's own Add) ends the command's first process, whose
// goroutine closes c.done and then calls a.sweeps.Add(1) — from a zero
// counter, with nothing ordering it before endAll's Wait (the
// WaitGroup's rule). The race detector reports it in the agent; this
// repeats the end of an agent with a running command to catch it. Run
// under -race only (elsewhere the misuse is silent, or a rare panic).
func TestEndAllWaitsForSweepsWithoutRace(t *testing.T) {
	if !raceEnabled {
		t.Skip("needs -race")
	}
	t.Parallel()
	for i := range 25 {
		a := startAgent(t)
		r := a.start(t, Request{Argv: bash(`echo ready; while :; do sleep 0.05; done`)})
		require.Eventually(t, func() bool { return r.stdout.String() == "ready\n" }, deadline, time.Millisecond)
		require.NoError(t, a.cmd.Process.Signal(syscall.SIGTERM))
		st := a.waitExit(t)
		r.wait(t)
		if strings.Contains(a.stderr.String(), "DATA RACE") {
			t.Fatalf("round %d: the agent (exit %d) reported a data race:\n%s", i, st.ExitCode(), a.stderr.String())
		}
	}
}
