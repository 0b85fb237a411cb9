package sshenv

import (
	"testing"

	"github.com/magenta-nvim/magenta/pkg/capabilities/remotetest"
)

// TestShell runs the remote shell suite over one connection to the
// shared sshd: output, the remote tree ended on cancel and timeout
// (setsid'd children included), a PTY answered through the Terminal.
func TestShell(t *testing.T) {
	t.Parallel()
	env, _, srv := newEnv(t, "")
	remotetest.Shell(t, func(*testing.T) remotetest.Target {
		return remotetest.Target{Env: env, Container: srv.Container}
	})
}
