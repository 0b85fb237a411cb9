package docker

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/docker/dockertest"
)

// deadline is how long a test waits for a condition.
const deadline = 30 * time.Second

func texts(lines []capabilities.OutputLine) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l.Stream.String() + ": " + l.Text
	}
	return out
}

func TestShellOutputExitAndCwd(t *testing.T) {
	t.Setenv("MAGENTA_HOST_ONLY", "secret")
	env, _ := newEnv(t, "")
	ctx := context.Background()
	res, err := env.Shell.Execute(ctx, `echo out; echo err >&2; pwd; echo "pager=$PAGER host=${MAGENTA_HOST_ONLY-unset} bash=${BASH_VERSION:+yes}"; exit 3`,
		capabilities.ExecOptions{ThreadID: "t", RequestID: "r1"})
	require.NoError(t, err)
	assert.Equal(t, 3, res.ExitCode)
	assert.Empty(t, res.Signal)
	// Two pipes: the order between them is not kept.
	assert.ElementsMatch(t, []string{"stdout: out", "stderr: err", "stdout: /root", "stdout: pager=cat host=unset bash=yes"}, texts(res.Head))
	// The log is on the host, where get_file reads it.
	log, err := os.ReadFile(res.LogPath)
	require.NoError(t, err)
	assert.Contains(t, string(log), "pager=cat")

	res, err = env.Shell.Execute(ctx, "pwd", capabilities.ExecOptions{ThreadID: "t", RequestID: "r2", Cwd: "/tmp"})
	require.NoError(t, err)
	assert.Equal(t, []string{"stdout: /tmp"}, texts(res.Head))
	assert.Equal(t, 0, res.ExitCode)
}

// TestShellLargeOutput: the head and tail are kept, the rest only in the
// host's log, as for a local command.
func TestShellLargeOutput(t *testing.T) {
	env, _ := newEnv(t, "")
	res, err := env.Shell.Execute(context.Background(), "i=0; while [ $i -lt 5000 ]; do i=$((i+1)); echo line $i; done",
		capabilities.ExecOptions{ThreadID: "t", RequestID: "big"})
	require.NoError(t, err)
	assert.Equal(t, 5000, res.TotalLines)
	require.Len(t, res.Head, capabilities.ShellHeadLines)
	require.Len(t, res.Tail, capabilities.ShellTailLines)
	assert.Equal(t, "line 1", res.Head[0].Text)
	assert.Equal(t, "line 5000", res.Tail[len(res.Tail)-1].Text)
	log, err := os.ReadFile(res.LogPath)
	require.NoError(t, err)
	assert.Contains(t, string(log), "line 2500\n")
}

// liveProcesses lists the container's processes that are not zombies
// (an orphan that PID 1 — here `sleep 3600` — never reaps stays a zombie
// after it was killed), other than PID 1's own.
func liveProcesses(t *testing.T, name string) []string {
	var live []string
	for _, line := range strings.Split(dockertest.Docker(t, "top", name, "-o", "pid,stat,args"), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) < 3 || strings.HasPrefix(f[1], "Z") || strings.Join(f[2:], " ") == "sleep 3600" {
			continue
		}
		live = append(live, strings.Join(f[2:], " "))
	}
	return live
}

// waitNoProcesses waits until nothing but PID 1 lives in the container.
func waitNoProcesses(t *testing.T, name string) {
	t.Helper()
	var live []string
	for end := time.Now().Add(deadline); time.Now().Before(end); {
		if live = liveProcesses(t, name); len(live) == 0 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("processes left in the container: %q", live)
}

// startedCancel returns options that cancel the command once it printed
// "started", and the context to run it with.
func startedCancel(t *testing.T) (context.Context, capabilities.ExecOptions) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return ctx, capabilities.ExecOptions{ThreadID: "t", RequestID: "cancel", OnOutput: func(l capabilities.OutputLine) {
		if l.Text == "started" {
			cancel()
		}
	}}
}

// TestShellCancelEndsTheCommandInside: cancelling `sleep 60` returns
// with SIGTERM reported and leaves nothing running in the container, the
// process that left the group with setsid included.
func TestShellCancelEndsTheCommandInside(t *testing.T) {
	env, name := newEnv(t, "")
	ctx, opts := startedCancel(t)
	res, err := env.Shell.Execute(ctx, "setsid sleep 998 & echo started; sleep 60", opts)
	require.NoError(t, err)
	assert.True(t, res.Cancelled)
	assert.Equal(t, -1, res.ExitCode)
	assert.Equal(t, "SIGTERM", res.Signal)
	waitNoProcesses(t, name)
}

func TestShellTimeout(t *testing.T) {
	env, name := newEnv(t, "")
	res, err := env.Shell.Execute(context.Background(), "sleep 60",
		capabilities.ExecOptions{ThreadID: "t", RequestID: "timeout", Timeout: time.Second})
	require.NoError(t, err)
	assert.True(t, res.TimedOut)
	assert.Equal(t, "SIGTERM", res.Signal)
	waitNoProcesses(t, name)
}

// TestShellBackgroundJobEnds: a background process that left the group
// does not outlive the command, which returns at once.
func TestShellBackgroundJobEnds(t *testing.T) {
	env, name := newEnv(t, "")
	res, err := env.Shell.Execute(context.Background(), "setsid sleep 999 & echo started",
		capabilities.ExecOptions{ThreadID: "t", RequestID: "bg"})
	require.NoError(t, err)
	assert.Equal(t, 0, res.ExitCode)
	assert.Equal(t, []string{"stdout: started"}, texts(res.Head))
	waitNoProcesses(t, name)
}

// TestShellExecInFlightEnds: each command exits while the process it
// left is still between fork and exec (its environment reads empty then);
// the sweep waits it out instead of missing it, as the one-pass sweep
// did under load.
func TestShellExecInFlightEnds(t *testing.T) {
	env, name := newEnv(t, "")
	for i := range 10 {
		res, err := env.Shell.Execute(context.Background(), fmt.Sprintf("setsid sleep 99%d &", i),
			capabilities.ExecOptions{ThreadID: "t", RequestID: fmt.Sprint("inflight", i)})
		require.NoError(t, err)
		require.Equal(t, 0, res.ExitCode)
	}
	waitNoProcesses(t, name)
}

// TestShellContainerStoppedMidCommand: the result is an error naming the
// container, not an exit status that looks like the command's own.
func TestShellContainerStoppedMidCommand(t *testing.T) {
	env, name := newEnv(t, "")
	opts := capabilities.ExecOptions{ThreadID: "t", RequestID: "stop", OnOutput: func(l capabilities.OutputLine) {
		if l.Text == "started" {
			go dockertest.Docker(t, "stop", "-t", "1", name)
		}
	}}
	_, err := env.Shell.Execute(context.Background(), "echo started; sleep 60", opts)
	require.Error(t, err)
	assert.Contains(t, err.Error(), name)
	assert.True(t, isGone(err), "%v", err)
}

func isGone(err error) bool {
	return errors.Is(err, ErrNotRunning) || errors.Is(err, ErrNoSuchContainer)
}

func TestShellPausedContainer(t *testing.T) {
	env, name := newEnv(t, "")
	dockertest.Docker(t, "pause", name)
	t.Cleanup(func() { dockertest.Docker(t, "unpause", name) })
	_, err := env.Shell.Execute(context.Background(), "echo hi", capabilities.ExecOptions{ThreadID: "t", RequestID: "paused"})
	require.ErrorIs(t, err, ErrPaused)
	assert.Contains(t, err.Error(), name)
}

// TestShellPausedMidCommand: a command frozen by a pause ends at its
// timeout, and the error says the container is paused.
func TestShellPausedMidCommand(t *testing.T) {
	env, name := newEnv(t, "")
	t.Cleanup(func() { dockertest.Docker(t, "unpause", name) })
	opts := capabilities.ExecOptions{ThreadID: "t", RequestID: "pause", Timeout: 2 * time.Second,
		OnOutput: func(l capabilities.OutputLine) {
			if l.Text == "started" {
				go dockertest.Docker(t, "pause", name)
			}
		}}
	_, err := env.Shell.Execute(context.Background(), "echo started; sleep 60", opts)
	require.ErrorIs(t, err, ErrPaused)
}

// TestShellWithoutBash: an image without bash runs commands with sh.
func TestShellWithoutBash(t *testing.T) {
	name := dockertest.Start(t)
	dockertest.Docker(t, "exec", name, "rm", "/bin/bash")
	env, err := NewEnvironment(context.Background(), Config{Container: name}, shellOptions(t))
	require.NoError(t, err)
	res, err := env.Shell.Execute(context.Background(), `echo "bash=${BASH_VERSION:-none}"; exit 4`,
		capabilities.ExecOptions{ThreadID: "t", RequestID: "sh"})
	require.NoError(t, err)
	assert.Equal(t, []string{"stdout: bash=none"}, texts(res.Head))
	assert.Equal(t, 4, res.ExitCode)
}

// TestShellContainerRemovedBefore: a command in a container removed since
// the environment was made fails with an error saying so.
func TestShellContainerRemovedBefore(t *testing.T) {
	env, name := newEnv(t, "")
	dockertest.Docker(t, "rm", "-f", name)
	_, err := env.Shell.Execute(context.Background(), "echo hi", capabilities.ExecOptions{ThreadID: "t", RequestID: "gone"})
	require.ErrorIs(t, err, ErrNoSuchContainer)
	assert.Contains(t, err.Error(), name)
}

// TestShellMissingCwd: a call in a directory the container lacks fails,
// as a local one does, instead of reporting the engine's exit 126.
func TestShellMissingCwd(t *testing.T) {
	env, _ := newEnv(t, "")
	_, err := env.Shell.Execute(context.Background(), "pwd", capabilities.ExecOptions{ThreadID: "t", RequestID: "cwd", Cwd: "nope"})
	require.ErrorIs(t, err, capabilities.ErrNotExist)
	assert.Contains(t, err.Error(), "/root/nope")
}
