package sshenv

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/remotetest"
	"github.com/magenta-nvim/magenta/pkg/capabilities/sshenv/sshtest"
)

// agentFiles lists the agents in the remote user's cache, with their
// inode (a new upload is a new file).
func agentFiles(t *testing.T, srv *sshtest.Server) string {
	t.Helper()
	return strings.TrimSpace(sshtest.Docker(t, "exec", "-u", "dev", srv.Container, "sh", "-c",
		`cd ~/.cache/magenta && for f in agent-*; do printf '%s %s\n' "$f" "$(stat -c %i "$f")"; done`))
}

// TestAgentUploadedOnce: the first connection uploads the agent into
// the remote user's cache, named by architecture and hash; the next one
// finds it there and runs it as it is.
func TestAgentUploadedOnce(t *testing.T) {
	t.Parallel()
	srv := sshtest.Start(t)
	_, c1 := newEnvOn(t, srv, "")
	require.True(t, c1.AgentRunning(), c1.AgentStatus())
	first := agentFiles(t, srv)
	require.Regexp(t, `^agent-[a-z0-9]+-[0-9a-f]{16} [0-9]+$`, first)
	assert.Contains(t, c1.AgentStatus(), "/home/dev/.cache/magenta/agent-")

	env2, c2 := newEnvOn(t, srv, "")
	require.True(t, c2.AgentRunning(), c2.AgentStatus())
	assert.Equal(t, first, agentFiles(t, srv), "uploaded again")
	res, err := env2.Shell.Execute(context.Background(), "echo two", capabilities.ExecOptions{ThreadID: "t", RequestID: "two"})
	require.NoError(t, err)
	assert.Equal(t, []string{"stdout: two"}, remotetest.Texts(res.Head))

	// Plant now, trigger later: the cached agent replaced there (by a
	// command the model ran) is not run by the next connection; the real
	// one is uploaded over it.
	name := strings.Fields(first)[0]
	sshtest.Docker(t, "exec", "-u", "dev", srv.Container, "sh", "-c",
		`printf '#!/bin/sh\necho planted > /tmp/planted-ran\n' > /tmp/planted && chmod 700 /tmp/planted && mv -f /tmp/planted ~/.cache/magenta/`+name)
	_, c3 := newEnvOn(t, srv, "")
	require.True(t, c3.AgentRunning(), c3.AgentStatus())
	assert.NotEqual(t, first, agentFiles(t, srv), "uploaded again")
	assert.Equal(t, "absent", sshtest.Docker(t, "exec", srv.Container, "sh", "-c", "test -e /tmp/planted-ran && echo ran || echo absent"))
}

// killAgents kills every agent in the container (the pattern's
// brackets keep it from matching this script's own command line).
const killAgents = `for d in /proc/[0-9]*; do tr '\0' ' ' < "$d/cmdline" 2>/dev/null | grep -q -- '--remote-agen[t]' && kill -9 "${d#/proc/}"; done; true`

// TestAgentKilled: an agent killed on the machine mid-command makes that
// command a lost connection (never a result that looks like its own),
// what it started is ended, and the next command runs — on a new agent.
func TestAgentKilled(t *testing.T) {
	t.Parallel()
	srv := sshtest.Start(t)
	env, c := newEnvOn(t, srv, "")
	require.True(t, c.AgentRunning(), c.AgentStatus())
	ctx := context.Background()
	_, err := env.Shell.Execute(ctx, "echo started; setsid sleep 9963 & sleep 9964", capabilities.ExecOptions{ThreadID: "t", RequestID: "killed",
		OnOutput: func(l capabilities.OutputLine) {
			if l.Text == "started" {
				// Not t.Fatal here: this runs on the shell's goroutine.
				out, err := exec.Command("docker", "exec", srv.Container, "sh", "-c", killAgents).CombinedOutput()
				if err != nil {
					t.Errorf("killing the agent: %v: %s", err, out)
				}
			}
		}})
	require.ErrorIs(t, err, ErrConnectionLost)
	assert.Contains(t, err.Error(), "remote agent")
	remotetest.WaitGone(t, srv.Container, "sleep 9963", "sleep 9964")

	res, err := env.Shell.Execute(ctx, "echo after", capabilities.ExecOptions{ThreadID: "t", RequestID: "after"})
	require.NoError(t, err)
	assert.Equal(t, []string{"stdout: after"}, remotetest.Texts(res.Head))
	require.Eventually(t, c.AgentRunning, deadline, 10*time.Millisecond)
}

// TestAgentEndsWithItsChannel: when the agent's channel closes (the
// host closed the Conn, or died: its ssh client gone), the agent ends
// what it runs, setsid'd processes included, and exits.
func TestAgentEndsWithItsChannel(t *testing.T) {
	t.Parallel()
	srv := sshtest.Start(t)
	env, c := newEnvOn(t, srv, "")
	require.True(t, c.AgentRunning(), c.AgentStatus())
	type outcome struct {
		res *capabilities.ExecResult
		err error
	}
	done := make(chan outcome, 1)
	started := make(chan struct{})
	go func() {
		res, err := env.Shell.Execute(context.Background(), "echo started; setsid sleep 9965 & sleep 9966", capabilities.ExecOptions{ThreadID: "t", RequestID: "closed",
			OnOutput: func(l capabilities.OutputLine) {
				if l.Text == "started" {
					close(started)
				}
			}})
		done <- outcome{res, err}
	}()
	select {
	case <-started:
	case <-time.After(deadline):
		t.Fatal("the command did not start")
	}
	c.agent.mu.Lock()
	client := c.agent.client
	c.agent.mu.Unlock()
	require.NoError(t, client.Close())
	remotetest.WaitGone(t, srv.Container, "sleep 9965", "sleep 9966", "--remote-agent")
	select {
	case o := <-done:
		// Ended by the agent (its status, a SIGTERM, got out first) or
		// cut off with the channel: never a success.
		if o.err == nil {
			assert.NotEqual(t, 0, o.res.ExitCode, "%+v", o.res)
		}
	case <-time.After(deadline):
		t.Fatal("the command's call did not return")
	}
}
