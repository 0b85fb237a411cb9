package localshell

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// deadline bounds every wait on a process condition.
const deadline = 30 * time.Second

// markerPids returns the live (non-zombie) processes whose argv is
// exactly "sleep <arg>", for each arg: unique sleep durations mark the
// processes a test starts.
func markerPids(t *testing.T, args ...string) map[string][]int {
	t.Helper()
	out := map[string][]int{}
	ents, err := os.ReadDir("/proc")
	require.NoError(t, err)
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		cl, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		argv := strings.Split(strings.TrimSuffix(string(cl), "\x00"), "\x00")
		if len(argv) != 2 || filepath.Base(argv[0]) != "sleep" {
			continue
		}
		st, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		if f := bytes.Fields(st[bytes.LastIndexByte(st, ')')+1:]); len(f) > 0 && f[0][0] == 'Z' {
			continue
		}
		for _, a := range args {
			if argv[1] == a {
				pid, _ := strconv.Atoi(e.Name())
				out[a] = append(out[a], pid)
			}
		}
	}
	return out
}

// waitMarkers waits until every marker runs (want) or none does.
func waitMarkers(t *testing.T, want bool, args ...string) {
	t.Helper()
	require.Eventually(t, func() bool {
		got := markerPids(t, args...)
		if want {
			return len(got) == len(args)
		}
		return len(got) == 0
	}, deadline, 10*time.Millisecond, "markers %v running: want %v, have %v", args, want, markerPids(t, args...))
}

// escapingCommand starts processes that leave the process group in every
// way a command can, one of them ignoring SIGTERM, each marked by a
// unique sleep argument, then runs rest.
func escapingCommand(base int, rest string) (string, []string) {
	m := make([]string, 5)
	for i := range m {
		m[i] = strconv.Itoa(base + i)
	}
	cmd := "setsid sleep " + m[0] + " & " +
		"setsid bash -c 'sleep " + m[1] + " & exit' ; " + // orphaned at once
		"( ( setsid sleep " + m[2] + " & ) & ) ; " + // double fork
		"setsid bash -c \"trap '' TERM; exec sleep " + m[3] + "\" & " + // ignores SIGTERM
		"sleep " + m[4] + " & " + // stays in the group
		rest
	return cmd, m
}

func TestNothingSurvivesTheEnd(t *testing.T) {
	// The command ends by itself once the test has seen its escapees
	// run: it waits on a FIFO the test then opens.
	gate := filepath.Join(t.TempDir(), "gate")
	require.NoError(t, syscall.Mkfifo(gate, 0o600))
	cmd, markers := escapingCommand(7710, "read -r _ < "+gate+"; echo ended")
	done := make(chan *capabilities.ExecResult, 1)
	sh := newShell(t)
	go func() {
		res, err := sh.Execute(context.Background(), cmd, capabilities.ExecOptions{RequestID: "r"})
		assert.NoError(t, err)
		done <- res
	}()
	waitMarkers(t, true, markers...)
	f, err := os.OpenFile(gate, os.O_WRONLY, 0)
	require.NoError(t, err)
	_, _ = f.WriteString("go\n")
	f.Close()
	res := <-done
	assert.Equal(t, 0, res.ExitCode)
	assert.Equal(t, []string{"stdout: ended"}, lines(res))
	waitMarkers(t, false, markers...)
}

func TestNothingSurvivesCancel(t *testing.T) {
	cmd, markers := escapingCommand(7720, "sleep 600")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan *capabilities.ExecResult, 1)
	sh := newShell(t)
	go func() {
		res, err := sh.Execute(ctx, cmd, capabilities.ExecOptions{RequestID: "r"})
		assert.NoError(t, err)
		done <- res
	}()
	waitMarkers(t, true, markers...)
	cancel()
	res := <-done
	assert.True(t, res.Cancelled)
	assert.Equal(t, "SIGTERM", res.Signal)
	waitMarkers(t, false, markers...)
}

func TestNothingSurvivesTimeout(t *testing.T) {
	cmd, markers := escapingCommand(7730, "sleep 600")
	seen := make(chan struct{})
	go func() {
		defer close(seen)
		assert.Eventually(t, func() bool { return len(markerPids(t, markers...)) == len(markers) }, deadline, 10*time.Millisecond)
	}()
	res := run(t, newShell(t), cmd, capabilities.ExecOptions{Timeout: 5 * time.Second})
	<-seen
	assert.True(t, res.TimedOut)
	waitMarkers(t, false, markers...)
}

// TestNothingSurvivesAKilledHost kills a process acting as the host with
// SIGKILL while its command runs: the supervisor, told by its parent-death
// signal, ends the whole tree.
func TestNothingSurvivesAKilledHost(t *testing.T) {
	cmd, markers := escapingCommand(7740, "sleep 600")
	host := startHostHelper(t, cmd)
	waitMarkers(t, true, markers...)
	require.NoError(t, host.Process.Kill())
	_ = host.Wait()
	waitMarkers(t, false, markers...)
}

// The same with spare supervisors: the host ran a command before, so
// the escaping one runs under a spare. The tree ends and the spare does
// not outlive the host; nor does an idle spare.
func TestNothingSurvivesAKilledHostWithSpares(t *testing.T) {
	cmd, markers := escapingCommand(7770, "sleep 600")
	for _, command := range []string{cmd, ""} {
		host := startHostHelperEnv(t, t.TempDir(), command, hostHelperWarmEnv+"=1")
		if command != "" {
			waitMarkers(t, true, markers...)
		}
		spares := func() []int {
			return processesWithEnv("MAGENTA_SUPERVISE=" + strconv.Itoa(host.Process.Pid) + ",spare")
		}
		require.Eventually(t, func() bool { return len(spares()) == 1 }, deadline, 10*time.Millisecond,
			"the spare (running %q): %v", command, spares())
		require.NoError(t, host.Process.Kill())
		_ = host.Wait()
		waitMarkers(t, false, markers...)
		require.Eventually(t, func() bool { return len(spares()) == 0 }, deadline, 10*time.Millisecond, "spares left: %v", spares())
	}
}

// processesWithEnv lists the live processes whose environment holds kv.
func processesWithEnv(kv string) []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		st, serr := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil || serr != nil || bytes.Contains(st, []byte(") Z ")) {
			continue
		}
		for _, v := range bytes.Split(env, []byte{0}) {
			if string(v) == kv {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

// TestSweepAfterDeadHost: a record says a host that is gone left a
// supervisor running (one that could not act on the death signal: here a
// live one whose record is rewritten to name a dead host). The next Shell
// on the same log root kills its whole tree and removes the record.
func TestSweepAfterDeadHost(t *testing.T) {
	cmd, markers := escapingCommand(7750, "sleep 600")
	root := t.TempDir()
	done := make(chan *capabilities.ExecResult, 1)
	go func() {
		res, err := New(Options{LogRoot: root}).Execute(context.Background(), cmd, capabilities.ExecOptions{RequestID: "r"})
		assert.NoError(t, err)
		done <- res
	}()
	waitMarkers(t, true, markers...)
	procs := filepath.Join(root, "procs")
	recs, err := os.ReadDir(procs)
	require.NoError(t, err)
	require.Len(t, recs, 1)
	_, sup, _ := strings.Cut(recs[0].Name(), "-")
	b, err := os.ReadFile(filepath.Join(procs, recs[0].Name()))
	require.NoError(t, err)
	_, supStart, _ := strings.Cut(string(b), " ")
	dead := exec.Command("true")
	require.NoError(t, dead.Run())
	require.NoError(t, os.WriteFile(filepath.Join(procs, strconv.Itoa(dead.Process.Pid)+"-"+sup), []byte("1 "+supStart), 0o600))
	require.NoError(t, os.Remove(filepath.Join(procs, recs[0].Name())))

	New(Options{LogRoot: root})
	waitMarkers(t, false, markers...)
	res := <-done
	assert.Equal(t, "SIGKILL", res.Signal)
	recs, err = os.ReadDir(procs)
	require.NoError(t, err)
	assert.Empty(t, recs)
}

func TestSweepSparesARunningHost(t *testing.T) {
	cmd, markers := escapingCommand(7760, "sleep 600")
	root := t.TempDir()
	host := startHostHelperAt(t, root, cmd)
	waitMarkers(t, true, markers...)
	recs, err := os.ReadDir(filepath.Join(root, "procs"))
	require.NoError(t, err)
	require.Len(t, recs, 1)
	New(Options{LogRoot: root}) // another Neovim on the same root
	// The sweep left the live host's record (and so its supervisor) alone.
	assert.FileExists(t, filepath.Join(root, "procs", recs[0].Name()))
	assert.Len(t, markerPids(t, markers...), len(markers))
	require.NoError(t, host.Process.Kill())
	_ = host.Wait()
	waitMarkers(t, false, markers...)
}

func startHostHelper(t *testing.T, command string) *exec.Cmd {
	return startHostHelperAt(t, t.TempDir(), command)
}

func startHostHelperAt(t *testing.T, root, command string) *exec.Cmd {
	t.Helper()
	return startHostHelperEnv(t, root, command)
}

func startHostHelperEnv(t *testing.T, root, command string, env ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	c := exec.Command(exe)
	c.Env = append(append(os.Environ(), hostHelperEnv+"="+root, "MAGENTA_TEST_HOST_COMMAND="+command), env...)
	c.Stderr = os.Stderr
	require.NoError(t, c.Start())
	t.Cleanup(func() { _ = c.Process.Kill(); _ = c.Wait() })
	return c
}
