package docker

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/capabilitytest"
	"github.com/magenta-nvim/magenta/pkg/capabilities/docker/dockertest"
)

// TestFileIOContract runs the FileIO contract suite inside one real
// container, each subtest in a fresh directory of it.
func TestFileIOContract(t *testing.T) {
	env, _ := newEnv(t, "")
	var n atomic.Int64
	capabilitytest.FileIO(t, func(t *testing.T) (capabilities.FileIO, string) {
		root := fmt.Sprintf("/tmp/contract-%d", n.Add(1))
		require.NoError(t, env.Files.MkdirAll(context.Background(), root))
		return env.Files, root
	})
}

// TestFileIOFIFO: a FIFO is refused without blocking, for reads, writes
// and Update alike.
func TestFileIOFIFO(t *testing.T) {
	env, name := newEnv(t, "")
	dockertest.Docker(t, "exec", name, "mkfifo", "/tmp/fifo")
	ctx := context.Background()
	_, err := env.Files.ReadFile(ctx, "/tmp/fifo")
	assert.ErrorIs(t, err, capabilities.ErrNotRegular)
	assert.ErrorIs(t, env.Files.WriteFile(ctx, "/tmp/fifo", []byte("x")), capabilities.ErrNotRegular)
	err = env.Files.Update(ctx, "/tmp/fifo", 100, func(b []byte) ([]byte, error) { return b, nil })
	assert.ErrorIs(t, err, capabilities.ErrNotRegular)
}

// TestFileIOKeepsMode: a rewrite keeps the file's mode (the temporary
// file it is written to gets it before the rename); a new file is 0644.
func TestFileIOKeepsMode(t *testing.T) {
	env, name := newEnv(t, "")
	ctx := context.Background()
	require.NoError(t, env.Files.WriteFile(ctx, "/tmp/run.sh", []byte("#!/bin/sh\n")))
	assert.Equal(t, "644", dockertest.Docker(t, "exec", name, "stat", "-c", "%a", "/tmp/run.sh"))
	dockertest.Docker(t, "exec", name, "chmod", "750", "/tmp/run.sh")
	require.NoError(t, env.Files.WriteFile(ctx, "/tmp/run.sh", []byte("#!/bin/sh\necho hi\n")))
	assert.Equal(t, "750", dockertest.Docker(t, "exec", name, "stat", "-c", "%a", "/tmp/run.sh"))
	// No temporary file is left beside it.
	assert.Equal(t, "run.sh", dockertest.Docker(t, "exec", name, "sh", "-c", "cd /tmp && ls -A | grep run"))
}

// TestFileIOWriteThroughSymlink: writing a symlink replaces its target's
// content and leaves the link a link.
func TestFileIOWriteThroughSymlink(t *testing.T) {
	env, name := newEnv(t, "")
	ctx := context.Background()
	require.NoError(t, env.Files.WriteFile(ctx, "/tmp/target", []byte("old")))
	dockertest.Docker(t, "exec", name, "ln", "-s", "/tmp/target", "/tmp/link")
	require.NoError(t, env.Files.WriteFile(ctx, "/tmp/link", []byte("new")))
	got, err := env.Files.ReadFile(ctx, "/tmp/target")
	require.NoError(t, err)
	assert.Equal(t, "new", string(got))
	assert.Equal(t, "/tmp/target", dockertest.Docker(t, "exec", name, "readlink", "/tmp/link"))
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
