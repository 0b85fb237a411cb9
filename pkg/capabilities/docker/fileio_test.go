package docker

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities/docker/dockertest"
	"github.com/magenta-nvim/magenta/pkg/capabilities/remotetest"
)

// TestFileIO runs the FileIO contract suite and the remote FileIO
// checks in one container.
func TestFileIO(t *testing.T) {
	env, name := newEnv(t, "")
	remotetest.FileIO(t, remotetest.Target{Env: env, Container: name})
}

// TestFileIOContainerState: file access in a paused or removed container
// fails at once with an error saying so, and names the path.
func TestFileIOContainerState(t *testing.T) {
	env, name := newEnv(t, "")
	ctx := context.Background()
	dockertest.Docker(t, "pause", name)
	_, err := env.Files.ReadFile(ctx, "/tmp/x")
	require.ErrorIs(t, err, ErrPaused)
	assert.Contains(t, err.Error(), "/tmp/x")
	require.ErrorIs(t, env.Files.WriteFile(ctx, "/tmp/x", []byte("x")), ErrPaused)
	dockertest.Docker(t, "unpause", name)

	dockertest.Docker(t, "rm", "-f", name)
	_, err = env.Files.Stat(ctx, "/tmp")
	require.ErrorIs(t, err, ErrNoSuchContainer)
	_, err = env.Files.Exists(ctx, "/tmp")
	require.ErrorIs(t, err, ErrNoSuchContainer)
}
