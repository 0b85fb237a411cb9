//go:build linux

package procsup

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/fdmsg"
)

func TestMain(m *testing.M) {
	MainIfSupervisor()
	os.Exit(m.Run())
}

func TestParseStat(t *testing.T) {
	// comm may hold spaces and parentheses.
	line := "4242 (a) b (c) S 17 4242 4242 0 -1 4194304 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 10 18446744073709551615\n"
	st, ok := parseStat([]byte(line))
	require.True(t, ok)
	assert.Equal(t, stat{state: 'S', ppid: 17, pgrp: 4242, startTime: 987654}, st)
	_, ok = parseStat([]byte("4242 (short) S 1 2"))
	assert.False(t, ok)
}

// Start reports the command's exit status and signal, and a command that
// cannot start is an error, not a status.
func TestStartReportsStatus(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	for _, tc := range []struct {
		script string
		exit   int
		signal string
	}{{"exit 7", 7, ""}, {"kill -KILL $$", -1, "killed"}} {
		p, err := Start(exe, exec.Command("bash", "-c", tc.script), 100*time.Millisecond)
		require.NoError(t, err)
		ws, err := p.Wait()
		require.NoError(t, err)
		if tc.signal != "" {
			assert.True(t, ws.Signaled())
			assert.Equal(t, "killed", ws.Signal().String())
		} else {
			assert.Equal(t, tc.exit, ws.ExitStatus())
		}
	}
	p, err := Start(exe, exec.Command("/nonexistent/bash"), 100*time.Millisecond)
	require.NoError(t, err)
	_, err = p.Wait()
	assert.ErrorContains(t, err, "no such file")
}

// The supervisor passes its environment on without MAGENTA_SUPERVISE.
func TestEnvironmentPassedWithoutTheSwitch(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command("bash", "-c", "env")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "KEEP=1"}
	out, err := os.CreateTemp(t.TempDir(), "out")
	require.NoError(t, err)
	cmd.Stdout = out
	p, err := Start(exe, cmd, time.Second)
	require.NoError(t, err)
	_, err = p.Wait()
	require.NoError(t, err)
	b, err := os.ReadFile(out.Name())
	require.NoError(t, err)
	assert.Contains(t, string(b), "KEEP=1\n")
	assert.NotContains(t, string(b), envVar)
}

func TestDescendants(t *testing.T) {
	cmd := exec.Command("bash", "-c", "sleep 7791 & sleep 7792 & wait")
	require.NoError(t, cmd.Start())
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	// A child is listed as soon as bash forks it, still bash until it has
	// exec'd sleep (seen once in a CI run): wait for both to be sleeps.
	sleeps := func() bool {
		pids := Descendants(cmd.Process.Pid)
		for _, pid := range pids {
			b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
			if err != nil || !strings.HasPrefix(string(b), "sleep\x00779") {
				return false
			}
		}
		return len(pids) == 2
	}
	require.Eventually(t, sleeps, 30*time.Second, 10*time.Millisecond)
	assert.Len(t, Descendants(cmd.Process.Pid), 2)
	for _, pid := range Descendants(cmd.Process.Pid) {
		p, _ := os.FindProcess(pid)
		_ = p.Kill()
	}
}

// StartTerminal makes the command a session leader whose controlling
// terminal is the PTY on its stdin: /dev/tty opens, the session and
// process group are the command's own, and the terminal's foreground
// group is it.
func TestStartTerminalGivesAControllingTerminal(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	// The first may get a supervisor of its own, the second gets a spare.
	for i := range 2 {
		master, slave, err := pty.Open()
		require.NoError(t, err)
		defer master.Close()
		cmd := exec.Command("bash", "-c", `read -r _ < /dev/tty && set -- $(cut -d' ' -f5-8 /proc/$$/stat) && echo "pid=$$ pgrp=$1 sid=$2 tpgid=$4"`)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
		p, err := StartTerminal(exe, cmd, 100*time.Millisecond)
		slave.Close()
		require.NoError(t, err)
		_, err = master.Write([]byte("go\n"))
		require.NoError(t, err)
		out, _ := io.ReadAll(master) // EIO once the supervisor is gone
		ws, err := p.Wait()
		require.NoError(t, err)
		assert.Equal(t, 0, ws.ExitStatus())
		var pid string
		for _, f := range strings.Fields(string(out)) {
			if v, ok := strings.CutPrefix(f, "pid="); ok {
				pid = v
			}
		}
		require.NotEmpty(t, pid, "output: %q", out)
		assert.Contains(t, string(out), "pgrp="+pid+" sid="+pid+" tpgid="+pid)
		if i == 1 {
			assert.NotNil(t, p.hostEnd, "the second ran under a spare")
		}
	}
}

// Beside finds an executable magenta-supervisor next to the running
// program, and nothing when there is none or it cannot be executed.
func TestBeside(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	path := filepath.Join(filepath.Dir(exe), BinaryName)
	if _, err := os.Lstat(path); err == nil {
		t.Skipf("%s exists already; not touching it", path)
	}
	assert.Equal(t, "", Beside(), "none there")
	require.NoError(t, os.WriteFile(path, []byte("#!/bin/sh\n"), 0o644))
	t.Cleanup(func() { os.Remove(path) })
	assert.Equal(t, "", Beside(), "not executable")
	require.NoError(t, os.Chmod(path, 0o755))
	assert.Equal(t, path, Beside())
}

// After the first command an idle supervisor waits for the next: it
// takes that command with its standard files, directory and environment
// (without the supervisor's switch), supervises it as one started for it
// would, and the spare after it is started.
func TestSpareTakesTheNextCommand(t *testing.T) {
	t.Setenv("MAGENTA_TEST_HOST_SECRET", "planted-7813")
	exe := runFirstCommand(t)

	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	require.NoError(t, os.WriteFile(in, []byte("from stdin\n"), 0o600))
	for i := range 3 {
		stdin, err := os.Open(in)
		require.NoError(t, err)
		out, err := os.CreateTemp(dir, "out")
		require.NoError(t, err)
		cmd := exec.Command("bash", "-c", `read -r line; echo "$line"; pwd; echo "keep=$KEEP switch=${`+envVar+`-none}"; cat /proc/$PPID/environ | tr '\0' '\n' | grep -c `+envVar+`=; setsid sleep 7811 & exit 4`)
		cmd.Dir = dir
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "KEEP=" + strconv.Itoa(i)}
		cmd.Stdin, cmd.Stdout = stdin, out
		p, err := Start(exe, cmd, time.Second)
		require.NoError(t, err)
		stdin.Close()
		ws, err := p.Wait()
		require.NoError(t, err)
		assert.Equal(t, 4, ws.ExitStatus())
		assert.NotNil(t, p.hostEnd, "command %d ran under a spare", i)
		b, err := os.ReadFile(out.Name())
		require.NoError(t, err)
		assert.Equal(t, "from stdin\n"+dir+"\nkeep="+strconv.Itoa(i)+" switch=none\n1\n", string(b), "the spare's own environment has the switch, the command's has not")
		require.Eventually(t, func() bool {
			return len(matching("sleep\x007811\x00")) == 0
		}, 30*time.Second, 10*time.Millisecond, "what the command left ends with it")
	}
	p, err := Start(exe, exec.Command("/nonexistent/bash"), time.Second)
	require.NoError(t, err)
	_, err = p.Wait()
	assert.ErrorContains(t, err, "no such file")
	assert.NotNil(t, p.hostEnd)

	// An idle spare holds none of the host's environment (its API keys).
	idle := idleSpare(t, exe)
	env, err := os.ReadFile("/proc/" + strconv.Itoa(idle.cmd.Process.Pid) + "/environ")
	require.NoError(t, err)
	assert.Equal(t, envVar+"="+strconv.Itoa(os.Getpid())+specSpare+"\x00GOMAXPROCS=1\x00", string(env))
}

// matching lists the processes whose command line is cmdline.
func matching(cmdline string) []string {
	var pids []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && string(b) == cmdline {
			if st, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil && !strings.Contains(string(st), ") Z ") {
				pids = append(pids, e.Name())
			}
		}
	}
	return pids
}

// A command whose environment does not fit in one message to a spare
// (the socket's buffer, ~200 KiB by default) gets a supervisor of its
// own, and runs all the same.
func TestLargeEnvironmentGetsASupervisorOfItsOwn(t *testing.T) {
	exe := runFirstCommand(t)
	cmd := exec.Command("bash", "-c", `exit $(( ${#BIG1} + ${#BIG4} == 200000 ? 6 : 1 ))`)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	for i := 1; i <= 4; i++ {
		cmd.Env = append(cmd.Env, "BIG"+strconv.Itoa(i)+"="+strings.Repeat("x", 100000))
	}
	p, err := Start(exe, cmd, time.Second)
	require.NoError(t, err)
	ws, err := p.Wait()
	require.NoError(t, err)
	assert.Equal(t, 6, ws.ExitStatus())
	assert.Nil(t, p.hostEnd, "a supervisor was started for it")
}

// A spare that died while idle is passed over: the command gets a
// supervisor of its own.
func TestDeadSpareIsPassedOver(t *testing.T) {
	exe := runFirstCommand(t)
	sp := idleSpare(t, exe)
	require.NoError(t, sp.cmd.Process.Kill())
	_, _ = sp.cmd.Process.Wait()
	p, err := Start(exe, exec.Command("bash", "-c", "exit 3"), time.Second)
	require.NoError(t, err)
	ws, err := p.Wait()
	require.NoError(t, err)
	assert.Equal(t, 3, ws.ExitStatus())
	assert.Nil(t, p.hostEnd, "a supervisor was started for it")
}

// A spare given a request without a command runs nothing and says so on
// the status pipe; one whose host closes the socket exits.
func TestSpareRefusesABadRequest(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	sp, err := startSpare(exe)
	require.NoError(t, err)
	null, err := os.Open(os.DevNull)
	require.NoError(t, err)
	defer null.Close()
	statusR, statusW, err := os.Pipe()
	require.NoError(t, err)
	require.NoError(t, fdmsg.Send(sp.conn, spareRequest{Dir: "/"}, spareRequestMax, null, null, null, statusW))
	statusW.Close()
	rec, err := io.ReadAll(statusR)
	require.NoError(t, err)
	assert.Equal(t, "Ea request without a command", strings.Replace(string(rec), "spare supervisor: ", "", 1))
	sp.conn.Close()
	_ = sp.cmd.Wait()

	sp, err = startSpare(exe)
	require.NoError(t, err)
	sp.conn.Close()
	err = sp.cmd.Wait()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	assert.Equal(t, 1, exit.ExitCode())
}

// runFirstCommand runs `true` under a supervisor, so that a spare is on
// its way, and returns the supervisor executable (this test binary).
func runFirstCommand(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	p, err := Start(exe, exec.Command("true"), time.Second)
	require.NoError(t, err)
	_, err = p.Wait()
	require.NoError(t, err)
	return exe
}

// idleSpare waits for exe's idle spare.
func idleSpare(t *testing.T, exe string) *spare {
	t.Helper()
	var sp *spare
	require.Eventually(t, func() bool {
		spares.Lock()
		defer spares.Unlock()
		sp = spares.slots[exe].idle
		return sp != nil
	}, 30*time.Second, 10*time.Millisecond)
	return sp
}
