package docker

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/docker/dockertest"
	"github.com/magenta-nvim/magenta/pkg/capabilities/remotetest"
)

// TestShell runs the remote shell suite, each subtest in a container of
// its own: output, the tree ended inside on cancel and timeout (setsid'd
// children included), interactive commands on the container's terminal.
func TestShell(t *testing.T) {
	remotetest.Shell(t, func(t *testing.T) remotetest.Target {
		env, name := newEnv(t, "")
		return remotetest.Target{Env: env, Container: name}
	})
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
	assert.Equal(t, []string{"stdout: bash=none"}, remotetest.Texts(res.Head))
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
