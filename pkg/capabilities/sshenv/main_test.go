package sshenv

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/localshell"
	"github.com/magenta-nvim/magenta/pkg/capabilities/procsup"
	"github.com/magenta-nvim/magenta/pkg/capabilities/sshenv/sshtest"
)

// TestMain makes the test binary its own process supervisor, as the host
// binary is, so the shell runs its ssh client supervised; after the
// tests it removes the sshd container they shared.
func TestMain(m *testing.M) {
	procsup.MainIfSupervisor()
	code := m.Run()
	sshtest.StopShared()
	os.Exit(code)
}

// deadline is how long a test waits for a condition.
const deadline = 30 * time.Second

// config reaches srv through the test's ssh_config; a lost connection
// is declared after 3 unanswered keepalives a second apart.
func config(srv *sshtest.Server) Config {
	return Config{Host: sshtest.Alias, Options: []string{"-F", srv.Config},
		AliveInterval: time.Second, ConnectTimeout: 5 * time.Second}
}

// newEnv returns the environment of a thread working on the sshd every
// test shares, with a Conn of its own (closed at cleanup).
func newEnv(t testing.TB, cwd string) (*capabilities.Environment, *Conn, *sshtest.Server) {
	t.Helper()
	srv := sshtest.Shared(t)
	env, c := newEnvOn(t, srv, cwd)
	return env, c, srv
}

// newEnvOn is newEnv on srv.
// Its commands go through the remote agent, as the host's do.
func newEnvOn(t testing.TB, srv *sshtest.Server, cwd string) (*capabilities.Environment, *Conn) {
	t.Helper()
	cfg := config(srv)
	cfg.AgentDir = sshtest.AgentDir(t)
	return newEnvWith(t, cfg, cwd)
}

// newWrappedEnv is newEnv without the agent: each command on a channel
// of its own, inside posixremote's wrapper.
func newWrappedEnv(t testing.TB, cwd string) (*capabilities.Environment, *Conn, *sshtest.Server) {
	t.Helper()
	srv := sshtest.Shared(t)
	env, c := newEnvWith(t, config(srv), cwd)
	return env, c, srv
}

func newEnvWith(t testing.TB, cfg Config, cwd string) (*capabilities.Environment, *Conn) {
	t.Helper()
	cfg.Cwd = cwd
	env, c, err := NewEnvironment(context.Background(), cfg, localshell.Options{LogRoot: t.TempDir()})
	if err != nil {
		t.Fatalf("NewEnvironment: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return env, c
}
