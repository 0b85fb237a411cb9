package docker

import (
	"context"
	"os"
	"testing"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/docker/dockertest"
	"github.com/magenta-nvim/magenta/pkg/capabilities/localshell"
	"github.com/magenta-nvim/magenta/pkg/capabilities/procsup"
)

// TestMain makes the test binary its own process supervisor, as the host
// binary is, so the shell runs its docker CLI supervised.
func TestMain(m *testing.M) {
	procsup.MainIfSupervisor()
	os.Exit(m.Run())
}

// newEnv starts a container and returns its environment, with the logs
// in a temporary directory.
func newEnv(t testing.TB, cwd string) (*capabilities.Environment, string) {
	t.Helper()
	name := dockertest.Start(t)
	env, err := NewEnvironment(context.Background(), Config{Container: name, Cwd: cwd}, shellOptions(t))
	if err != nil {
		t.Fatalf("NewEnvironment: %v", err)
	}
	return env, name
}

// shellOptions keep the test's logs in a temporary directory.
func shellOptions(t testing.TB) localshell.Options {
	return localshell.Options{LogRoot: t.TempDir()}
}
