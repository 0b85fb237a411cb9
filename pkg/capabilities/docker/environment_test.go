package docker

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/docker/dockertest"
	"github.com/magenta-nvim/magenta/pkg/capabilities/remotetest"
)

// TestEnvironmentResolvesCwdAndHome: the container's working directory
// and $HOME when the config names no cwd; the config's cwd otherwise.
func TestEnvironmentResolvesCwdAndHome(t *testing.T) {
	env, name := newEnv(t, "")
	assert.Equal(t, "docker:"+name, env.Name)
	assert.Equal(t, "/root", env.Cwd) // the image's WORKDIR
	assert.Equal(t, "/root", env.Home)
	assert.Nil(t, env.Fetcher)
	assert.Equal(t, capabilities.NoLSP{}, env.LSP)
	assert.Equal(t, capabilities.NoLSP{}, env.Diagnostics)
	assert.Nil(t, env.LSPAvailable)

	env, err := NewEnvironment(context.Background(), Config{Container: name, Cwd: "/tmp/"}, shellOptions(t))
	require.NoError(t, err)
	assert.Equal(t, "/tmp", env.Cwd)
	res, err := env.Shell.Execute(context.Background(), "pwd", capabilities.ExecOptions{ThreadID: "t", RequestID: "r"})
	require.NoError(t, err)
	assert.Equal(t, "/tmp", res.Head[0].Text)
}

func TestEnvironmentErrors(t *testing.T) {
	ctx := context.Background()
	name := dockertest.Start(t)

	_, err := NewEnvironment(ctx, Config{Container: name + "-unknown"}, shellOptions(t))
	require.ErrorIs(t, err, ErrNoSuchContainer)
	assert.Contains(t, err.Error(), name+"-unknown")

	_, err = NewEnvironment(ctx, Config{Container: name, Cwd: "/no/such/dir"}, shellOptions(t))
	require.ErrorIs(t, err, capabilities.ErrNotExist)
	assert.Contains(t, err.Error(), "/no/such/dir")

	_, err = NewEnvironment(ctx, Config{Container: name, Cwd: "relative"}, shellOptions(t))
	require.Error(t, err)

	created := name + "-created"
	dockertest.Docker(t, "create", "--name", created, dockertest.Image(t), "sleep", "3600")
	t.Cleanup(func() { dockertest.Docker(t, "rm", "-f", created) })
	_, err = NewEnvironment(ctx, Config{Container: created}, shellOptions(t))
	require.ErrorIs(t, err, ErrNotRunning)
	assert.Contains(t, err.Error(), created)

	dockertest.Docker(t, "pause", name)
	t.Cleanup(func() { dockertest.Docker(t, "unpause", name) })
	_, err = NewEnvironment(ctx, Config{Container: name}, shellOptions(t))
	require.ErrorIs(t, err, ErrPaused)
}

// TestEnvironmentWithoutDocker: no CLI on PATH, and a CLI whose daemon
// does not answer, each give their own message.
func TestEnvironmentWithoutDocker(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := NewEnvironment(context.Background(), Config{Container: "x"}, shellOptions(t))
	require.ErrorIs(t, err, ErrNotInstalled)
	_, err = Version(context.Background())
	require.ErrorIs(t, err, ErrNotInstalled)
}

func TestEnvironmentNoDaemon(t *testing.T) {
	dockertest.Image(t) // the CLI is there
	t.Setenv("DOCKER_HOST", "unix://"+filepath.Join(t.TempDir(), "no.sock"))
	_, err := NewEnvironment(context.Background(), Config{Container: "x"}, shellOptions(t))
	require.ErrorIs(t, err, ErrNoDaemon)
	assert.True(t, strings.HasPrefix(err.Error(), "the Docker daemon does not answer: "), err.Error())
}

func TestContainersAndVersion(t *testing.T) {
	name := dockertest.Start(t)
	names, err := Containers(context.Background())
	require.NoError(t, err)
	assert.Contains(t, names, name)
	v, err := Version(context.Background())
	require.NoError(t, err)
	assert.Equal(t, dockertest.Docker(t, "version", "--format", "{{.Server.Version}}"), v)
}

// TestSearcher: no Searcher in a container without rg; with rg copied
// in, a search runs inside the container.
func TestSearcher(t *testing.T) {
	env, name := newEnv(t, "")
	assert.Nil(t, env.Searcher, NoSearcher)

	dockertest.InstallRipgrep(t, name)
	env, err := NewEnvironment(context.Background(), Config{Container: name, Cwd: "/tmp"}, shellOptions(t))
	require.NoError(t, err)
	require.NotNil(t, env.Searcher)
	ctx := context.Background()
	require.NoError(t, env.Files.MkdirAll(ctx, "/tmp/src/sub"))
	require.NoError(t, env.Files.WriteFile(ctx, "/tmp/src/a.go", []byte("package a\n// needle here\n")))
	require.NoError(t, env.Files.WriteFile(ctx, "/tmp/src/sub/b.txt", []byte("no\nneedle too\n")))
	res, err := env.Searcher.Search(ctx, capabilities.SearchRequest{Pattern: "needle", Path: "/tmp/src"})
	require.NoError(t, err)
	assert.Contains(t, res.Searcher, "in container "+name)
	got := map[string]int{}
	for _, f := range res.Files {
		got[f.Path] = f.Lines[0].Number
	}
	assert.Equal(t, map[string]int{"a.go": 2, filepath.Join("sub", "b.txt"): 2}, got)

	// Secrets are left out and counted inside the container as on the host.
	require.NoError(t, env.Files.WriteFile(ctx, "/tmp/src/.env", []byte("needle=1\n")))
	res, err = env.Searcher.Search(ctx, capabilities.SearchRequest{Pattern: "needle", Path: "/tmp/src"})
	require.NoError(t, err)
	assert.Len(t, res.Files, 2)
	assert.Equal(t, 1, res.SecretsSkipped)

	_, err = env.Searcher.Search(ctx, capabilities.SearchRequest{Pattern: "x", Path: "/tmp/missing"})
	require.ErrorIs(t, err, capabilities.ErrNotExist)
}

// TestContext: an environment under a docker context of its own. The
// CLI's default then points nowhere (DOCKER_HOST names a dead socket), so
// every call of the environment works only if it passes --context.
func TestContext(t *testing.T) {
	ctx := context.Background()
	name := dockertest.Start(t)
	dctx := dockertest.Context(t)
	t.Setenv("DOCKER_HOST", "unix://"+filepath.Join(t.TempDir(), "no.sock"))
	_, err := NewEnvironment(ctx, Config{Container: name}, shellOptions(t))
	require.ErrorIs(t, err, ErrNoDaemon, "the default must not answer for this test to mean anything")

	env, err := NewEnvironment(ctx, Config{Container: name, Context: dctx}, shellOptions(t))
	require.NoError(t, err)
	assert.Equal(t, "docker:"+name, env.Name)
	require.NoError(t, env.Files.WriteFile(ctx, "/tmp/ctx", []byte("in context")))
	got, err := env.Files.ReadFile(ctx, "/tmp/ctx")
	require.NoError(t, err)
	assert.Equal(t, "in context", string(got))
	res, err := env.Shell.Execute(ctx, "cat /tmp/ctx", capabilities.ExecOptions{ThreadID: "t", RequestID: "ctx"})
	require.NoError(t, err)
	assert.Equal(t, []string{"stdout: in context"}, remotetest.Texts(res.Head))

	names, err := ContainersIn(ctx, dctx)
	require.NoError(t, err)
	assert.Contains(t, names, name)
	_, err = Containers(ctx)
	require.ErrorIs(t, err, ErrNoDaemon)
	contexts, err := Contexts(ctx)
	require.NoError(t, err)
	assert.Contains(t, contexts, dctx)
	assert.Contains(t, contexts, "default")
}

// TestUnknownContext: a context the CLI does not know is an error that
// names it, for an environment and for a listing alike.
func TestUnknownContext(t *testing.T) {
	ctx := context.Background()
	dockertest.Image(t) // the CLI is there
	const unknown = "magenta-no-such-context"
	_, err := NewEnvironment(ctx, Config{Container: "x", Context: unknown}, shellOptions(t))
	require.ErrorIs(t, err, ErrNoSuchContext)
	assert.Contains(t, err.Error(), `"`+unknown+`"`)
	_, err = ContainersIn(ctx, unknown)
	require.ErrorIs(t, err, ErrNoSuchContext)
	assert.Contains(t, err.Error(), unknown)
	t.Setenv("DOCKER_CONTEXT", unknown)
	_, err = Containers(ctx)
	require.ErrorIs(t, err, ErrNoSuchContext)
	assert.Contains(t, err.Error(), unknown)
}

// TestDockerHost: DOCKER_HOST in the host's environment reaches the CLI
// (the environment keeps it: the user's engine, as in their terminal).
func TestDockerHost(t *testing.T) {
	ctx := context.Background()
	name := dockertest.Start(t)
	t.Setenv("DOCKER_HOST", dockertest.Docker(t, "context", "inspect", "--format", "{{.Endpoints.docker.Host}}"))
	env, err := NewEnvironment(ctx, Config{Container: name}, shellOptions(t))
	require.NoError(t, err)
	res, err := env.Shell.Execute(ctx, "echo via DOCKER_HOST", capabilities.ExecOptions{ThreadID: "t", RequestID: "host"})
	require.NoError(t, err)
	assert.Equal(t, []string{"stdout: via DOCKER_HOST"}, remotetest.Texts(res.Head))
}
