package localshell

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/proctest"
	"github.com/magenta-nvim/magenta/pkg/sandbox"
	"github.com/magenta-nvim/magenta/pkg/sandbox/sandboxtest"
	"github.com/magenta-nvim/magenta/pkg/sandbox/zygote"
)

// parentShell is a shell whose confined commands go through a
// confinement parent (this test binary, see TestMain), waited for until
// it is ready. env is the shell's environment (nil: the test's).
func parentShell(t *testing.T, env []string) (*Shell, *zygote.Parent, string) {
	t.Helper()
	st := sandboxtest.Require(t)
	ws, home := t.TempDir(), t.TempDir()
	self, err := os.Executable()
	require.NoError(t, err)
	status := func() (sandbox.Status, error) { return st, nil }
	policy := sandbox.Policy{Workspace: ws, Home: home}
	parent := ParentFor(status, policy, self, func(msg string) { t.Log(msg) })
	t.Cleanup(parent.Close)
	waitReady(t, parent)
	sh := New(Options{LogRoot: t.TempDir(), Cwd: ws, Env: env,
		Confiner: BwrapConfiner{Status: status, Policy: policy, Parent: parent}})
	return sh, parent, ws
}

// waitReady waits until parent is ready, failing when it will not be.
func waitReady(t testing.TB, parent *zygote.Parent) {
	t.Helper()
	deadline := time.Now().Add(zygote.CheckTimeout + 5*time.Second)
	for !parent.Ready() {
		if ready, why := parent.Status(); !ready && why != "starting" && !strings.HasPrefix(why, "not started") {
			t.Fatalf("the confinement parent is not used: %s", why)
		}
		if time.Now().After(deadline) {
			t.Fatal("the confinement parent did not become ready")
		}
		time.Sleep(5 * time.Millisecond) // polling a state, with a deadline
	}
}

func runConfined(t *testing.T, sh *Shell, command string) (*capabilities.ExecResult, string) {
	t.Helper()
	res, err := sh.Execute(context.Background(), command, capabilities.ExecOptions{ThreadID: "t", RequestID: "r", Sandbox: true, Timeout: time.Minute})
	require.NoError(t, err)
	require.True(t, res.Confined)
	return res, strings.Join(lines(res), "\n")
}

// waitGone waits until no process runs argv.
func waitGone(t *testing.T, argv ...string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for proctest.CommandRunning(argv...) {
		if time.Now().After(deadline) {
			t.Fatalf("%q still runs", argv)
		}
		time.Sleep(10 * time.Millisecond) // polling the process table, with a deadline
	}
}

func TestParentRunsAConfinedCommand(t *testing.T) {
	sh, _, ws := parentShell(t, append(os.Environ(), "AWS_SECRET_ACCESS_KEY=planted-key"))
	res, out := runConfined(t, sh, `echo hello; pwd; echo err >&2; echo "key=${AWS_SECRET_ACCESS_KEY:-unset} tmp=$TMPDIR"; exit 3`)
	assert.Equal(t, 3, res.ExitCode)
	assert.Contains(t, out, "hello\n")
	assert.Contains(t, out, ws)
	assert.Contains(t, out, "err")
	assert.Contains(t, out, "key=unset tmp=/tmp", "the sandbox's environment allowlist applies")
	assert.NotContains(t, out, "planted-key")

	res, _ = runConfined(t, sh, `kill -TERM $$`)
	assert.Equal(t, 128+int(syscall.SIGTERM), res.ExitCode, "a command ended by a signal exits as a shell says")
}

// What a command leaves behind where the parent's view is shared — the
// private directories, /dev, loopback, processes — the next command
// does not find (doc.go's threat model).
func TestParentCommandsShareNothing(t *testing.T) {
	sh, _, _ := parentShell(t, nil)
	listener := ""
	if _, err := exec.LookPath("python3"); err == nil {
		listener = `python3 -c 'import socket,time; s=socket.socket(); s.bind(("127.0.0.1", 47913)); s.listen(); time.sleep(300)' &` + "\n"
	}
	res, out := runConfined(t, sh, listener+`
echo planted > /tmp/planted; echo planted > /var/tmp/planted; echo planted > /run/planted; echo planted > /dev/shm/planted
touch /dev/planted 2>/dev/null && echo DEV-WRITABLE
sleep 7911 &
setsid sleep 7912 &
( setsid nohup sleep 7913 >/dev/null 2>&1 & )
sleep 0.2
echo started`)
	require.Equal(t, 0, res.ExitCode, out)
	assert.NotContains(t, out, "DEV-WRITABLE", "/dev is read-only")
	for _, n := range []string{"7911", "7912", "7913"} {
		waitGone(t, "sleep", n)
	}

	res, out = runConfined(t, sh, `
ls -A /tmp /var/tmp /run /dev/shm
ls /dev/planted 2>/dev/null && echo DEV-PLANTED
(exec 3<>/dev/tcp/127.0.0.1/47913) 2>/dev/null && echo LISTENER-REACHED
cat /proc/[0-9]*/comm
echo done`)
	require.Equal(t, 0, res.ExitCode, out)
	assert.NotContains(t, out, "planted")
	assert.NotContains(t, out, "DEV-PLANTED")
	assert.NotContains(t, out, "LISTENER-REACHED")
	assert.NotContains(t, out, "sleep")
	assert.NotContains(t, out, "confinement_parent", "the parent is not visible")
}

// The command has no capability and cannot reach its init while the
// init holds some: not dumpable, its memory and environment closed.
func TestParentCommandHasNoPower(t *testing.T) {
	sh, _, _ := parentShell(t, nil)
	_, out := runConfined(t, sh, `
grep -E '^Cap(Inh|Prm|Eff|Bnd|Amb)' /proc/self/status
grep NoNewPrivs /proc/self/status
head -c1 /proc/1/mem >/dev/null 2>&1 && echo INIT-MEM-READ
cat /proc/1/environ >/dev/null 2>&1 && echo INIT-ENV-READ
ls /run/.magenta-parent 2>/dev/null && echo PARENT-EXE
( : > /proc/sysrq-trigger ) 2>/dev/null && echo SYSRQ-WRITABLE
( echo 1 > /proc/sys/kernel/ns_last_pid ) 2>/dev/null && echo SYSCTL-WRITABLE
mount -t tmpfs none /tmp 2>/dev/null && echo MOUNTED
echo done`)
	for _, set := range []string{"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"} {
		assert.Contains(t, out, set+":\t0000000000000000", "no capability in %s", set)
	}
	assert.Contains(t, out, "NoNewPrivs:\t1")
	for _, bad := range []string{"INIT-MEM-READ", "INIT-ENV-READ", "PARENT-EXE", "SYSRQ-WRITABLE", "SYSCTL-WRITABLE", "MOUNTED"} {
		assert.NotContains(t, out, bad)
	}
	assert.Contains(t, out, "done")
}

// Mounts are computed for every command: a secret and a repository
// created after the parent started are hidden and read-only.
func TestParentMasksWhatAppearedSince(t *testing.T) {
	sh, _, ws := parentShell(t, nil)
	runConfined(t, sh, "true")
	require.NoError(t, os.WriteFile(filepath.Join(ws, ".env"), []byte("API_TOKEN=planted-later"), 0o600))
	git := exec.Command("git", "init", "-q", ws)
	require.NoError(t, git.Run())
	res, out := runConfined(t, sh, `cat .env; touch .git/hooks/planted 2>&1 || echo HOOK-REFUSED; echo done`)
	assert.NotContains(t, out, "planted-later")
	assert.Contains(t, out, "HOOK-REFUSED")
	assert.NoFileExists(t, filepath.Join(ws, ".git", "hooks", "planted"))
	assert.Equal(t, 0, res.ExitCode)
	// The workspace itself is shared, as intended.
	runConfined(t, sh, "echo written > out.txt")
	data, err := os.ReadFile(filepath.Join(ws, "out.txt"))
	require.NoError(t, err)
	assert.Equal(t, "written\n", string(data))
}

// A command cut short ends with everything it started; a parent that
// dies is replaced, commands meanwhile confined by bubblewrap alone;
// closing the parent leaves nothing.
func TestParentEndsWhatItRuns(t *testing.T) {
	sh, parent, _ := parentShell(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = sh.Execute(ctx, "setsid sleep 7921 & trap '' TERM; sleep 7922", capabilities.ExecOptions{ThreadID: "t", RequestID: "abort", Sandbox: true, Timeout: time.Minute})
	}()
	deadline := time.Now().Add(10 * time.Second)
	for !proctest.CommandRunning("sleep", "7922") {
		require.True(t, time.Now().Before(deadline), "the command did not start")
		time.Sleep(10 * time.Millisecond) // polling the process table, with a deadline
	}
	cancel()
	<-done
	waitGone(t, "sleep", "7921")
	waitGone(t, "sleep", "7922")

	// The parent dies: the next command is confined all the same.
	require.True(t, proctest.CommandRunning(sandbox.ParentExecutable, "__magenta_confinement_parent"))
	require.NoError(t, exec.Command("pkill", "-KILL", "-f", "__magenta_confinement_parent").Run())
	waitGone(t, sandbox.ParentExecutable, "__magenta_confinement_parent")
	// At once, before the host may have seen it exit: a command handed
	// to the dead parent is not taken and runs under bubblewrap.
	res, out := runConfined(t, sh, "echo after")
	assert.Equal(t, 0, res.ExitCode, out)
	assert.Contains(t, out, "after")
	waitReady(t, parent)
	res, out = runConfined(t, sh, "echo again")
	assert.Equal(t, 0, res.ExitCode, out)

	parent.Close()
	waitGone(t, sandbox.ParentExecutable, "__magenta_confinement_parent")
	waitGone(t, sandbox.ParentExecutable, "__magenta_confinement_init")
}

// parentHelperEnv makes the host helper (TestMain) run its command
// confined through a confinement parent of its own.
const parentHelperEnv = "MAGENTA_TEST_PARENT_HELPER"

// parentHelperShell is the host helper's shell with a ready confinement
// parent, its workspace and home under root.
func parentHelperShell(root string) *Shell {
	st := sandbox.Detect(context.Background(), "")
	ws, home := filepath.Join(root, "ws"), filepath.Join(root, "home")
	for _, d := range []string{ws, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			panic(err)
		}
	}
	self, err := os.Executable()
	if err != nil {
		panic(err)
	}
	status := func() (sandbox.Status, error) { return st, nil }
	policy := sandbox.Policy{Workspace: ws, Home: home}
	parent := ParentFor(status, policy, self, func(string) {})
	deadline := time.Now().Add(zygote.CheckTimeout)
	for !parent.Ready() {
		if time.Now().After(deadline) {
			panic("the confinement parent did not become ready")
		}
		time.Sleep(5 * time.Millisecond) // polling a state, with a deadline
	}
	return New(Options{LogRoot: root, Cwd: ws, Confiner: BwrapConfiner{Status: status, Policy: policy, Parent: parent}})
}

// A host killed while a confined command runs through its parent leaves
// nothing: not the command, not what it started with setsid, not the
// parent or its next init.
func TestParentDiesWithTheHost(t *testing.T) {
	sandboxtest.Require(t)
	t.Setenv(parentHelperEnv, "1")
	host := startHostHelper(t, "setsid sleep 7931 & sleep 7932")
	deadline := time.Now().Add(20 * time.Second)
	for !proctest.CommandRunning("sleep", "7932") {
		require.True(t, time.Now().Before(deadline), "the confined command did not start")
		time.Sleep(10 * time.Millisecond) // polling the process table, with a deadline
	}
	require.True(t, proctest.CommandRunning(sandbox.ParentExecutable, "__magenta_confinement_parent"))
	require.NoError(t, host.Process.Kill())
	_ = host.Wait()
	for _, argv := range [][]string{{"sleep", "7931"}, {"sleep", "7932"},
		{sandbox.ParentExecutable, "__magenta_confinement_parent"}, {sandbox.ParentExecutable, "__magenta_confinement_init"}} {
		waitGone(t, argv...)
	}
}
