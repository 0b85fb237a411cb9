package sshenv

import (
	"testing"

	"github.com/magenta-nvim/magenta/pkg/capabilities/remotetest"
	"github.com/stretchr/testify/require"
)

// TestShell runs the remote shell suite over one connection to the
// shared sshd: output, the remote tree ended on cancel and timeout
// (setsid'd children included), a PTY answered through the Terminal.
func TestShell(t *testing.T) {
	t.Parallel()
	env, c, srv := newEnv(t, "")
	require.Contains(t, c.AgentStatus(), "through the remote agent")
	remotetest.Shell(t, func(*testing.T) remotetest.Target {
		return remotetest.Target{Env: env, Container: srv.Container}
	})
}

// TestShellWrapped runs the suite without the agent: each command on a
// channel of its own inside posixremote's wrapper (a machine the agent
// cannot run on, or a command the agent did not take).
func TestShellWrapped(t *testing.T) {
	t.Parallel()
	env, c, srv := newWrappedEnv(t, "")
	require.Contains(t, c.AgentStatus(), "channel each")
	remotetest.Shell(t, func(*testing.T) remotetest.Target {
		return remotetest.Target{Env: env, Container: srv.Container}
	})
}
