package sshenv

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/remotetest"
	"github.com/magenta-nvim/magenta/pkg/capabilities/sshenv/sshtest"
)

// dialWith connects with srv's settings but another ssh_config (made by
// edit); stdin is not a terminal, so a prompt would hang until the
// deadline instead of failing.
func dialWith(t *testing.T, srv *sshtest.Server, edit func(cfgPath string)) (*Conn, error) {
	t.Helper()
	cfg := config(srv)
	path := filepath.Join(t.TempDir(), "config")
	edit(path)
	cfg.Options = []string{"-F", path}
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	start := time.Now()
	c, err := Dial(ctx, cfg)
	assert.Less(t, time.Since(start), 15*time.Second, "it waited (for a prompt?)")
	if c != nil {
		t.Cleanup(func() { _ = c.Close() })
	}
	return c, err
}

// TestWrongHostKey: a host whose key differs from known_hosts is a
// clear error, never a prompt.
func TestWrongHostKey(t *testing.T) {
	t.Parallel()
	srv := sshtest.Shared(t)
	_, err := dialWith(t, srv, func(cfgPath string) {
		kh := filepath.Join(t.TempDir(), "known_hosts")
		srv.WriteKnownHosts(t, kh, sshtest.OtherHostKey(t))
		srv.WriteConfig(t, cfgPath, kh)
	})
	require.ErrorIs(t, err, ErrHostKey)
	assert.Contains(t, err.Error(), sshtest.Alias)
}

// TestUnknownHostKey: a host not in known_hosts is refused too
// (StrictHostKeyChecking from the user's config, nothing asked).
func TestUnknownHostKey(t *testing.T) {
	t.Parallel()
	srv := sshtest.Shared(t)
	_, err := dialWith(t, srv, func(cfgPath string) {
		kh := filepath.Join(t.TempDir(), "known_hosts")
		require.NoError(t, os.WriteFile(kh, nil, 0o600))
		srv.WriteConfig(t, cfgPath, kh)
	})
	require.ErrorIs(t, err, ErrHostKey)
}

// TestAuthFailure: a key the server does not accept is ErrAuth; no
// password or passphrase is asked.
func TestAuthFailure(t *testing.T) {
	t.Parallel()
	srv := sshtest.Shared(t)
	_, err := dialWith(t, srv, func(cfgPath string) {
		srv.WriteConfig(t, cfgPath, filepath.Join(srv.Dir, "known_hosts"))
		other, _ := sshtest.NewKey(t)
		b, err := os.ReadFile(cfgPath)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(cfgPath, []byte(strings.ReplaceAll(string(b), filepath.Join(srv.Dir, "id"), other)), 0o600))
	})
	require.ErrorIs(t, err, ErrAuth)
}

// TestUnreachable: nothing listens on the port.
func TestUnreachable(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	_, port, _ := net.SplitHostPort(l.Addr().String())
	require.NoError(t, l.Close())
	closed := *sshtest.Shared(t)
	closed.Port = port
	_, err = dialWith(t, &closed, func(cfgPath string) {
		closed.WriteConfig(t, cfgPath, filepath.Join(closed.Dir, "known_hosts"))
	})
	require.ErrorIs(t, err, ErrUnreachable)
}

// TestConnectionLost pauses a server of its own (the container frozen:
// the host stops answering, as on a network cut).
func TestConnectionLost(t *testing.T) {
	t.Parallel()
	srv := sshtest.Start(t)
	env, _ := newEnvOn(t, srv, "")
	paused := false
	pause := func() {
		sshtest.Docker(t, "pause", srv.Container)
		paused = true
	}
	unpause := func() {
		if paused {
			sshtest.Docker(t, "unpause", srv.Container)
			paused = false
		}
	}
	t.Cleanup(unpause)

	// MidCommand: the call returns ErrConnectionLost once the keepalives
	// go unanswered, not a result that looks like the command's; after
	// the host is back the next call connects again, and what the
	// cut-off command left running there is ended.
	t.Run("MidCommand", func(t *testing.T) {
		start := time.Now()
		_, err := env.Shell.Execute(context.Background(), "echo started; sleep 9971", capabilities.ExecOptions{ThreadID: "t", RequestID: "lost",
			OnOutput: func(l capabilities.OutputLine) {
				if l.Text == "started" {
					pause()
				}
			}})
		require.ErrorIs(t, err, ErrConnectionLost)
		assert.Contains(t, err.Error(), "bashCommand.log")
		assert.Less(t, time.Since(start), deadline)

		unpause()
		res, err := env.Shell.Execute(context.Background(), "echo back", capabilities.ExecOptions{ThreadID: "t", RequestID: "back"})
		require.NoError(t, err)
		assert.Equal(t, []string{"stdout: back"}, remotetest.Texts(res.Head))
		remotetest.WaitGone(t, srv.Container, "sleep 9971")
	})

	// FileIO: a read while the host does not answer fails with a
	// connection error naming the path; once it is back, reads work.
	t.Run("FileIO", func(t *testing.T) {
		ctx := context.Background()
		require.NoError(t, env.Files.WriteFile(ctx, "/tmp/f", []byte("x")))
		pause()
		_, err := env.Files.ReadFile(ctx, "/tmp/f")
		unpause()
		require.Error(t, err)
		assert.True(t, errors.Is(err, ErrConnectionLost) || errors.Is(err, ErrUnreachable), "%v", err)
		assert.Contains(t, err.Error(), "/tmp/f")
		got, err := env.Files.ReadFile(ctx, "/tmp/f")
		require.NoError(t, err)
		assert.Equal(t, "x", string(got))
	})
}

// TestMasterEndedReconnects: a master that ended (ControlPersist ran
// out, or `ssh -O exit` by hand) is started again by the next call;
// Close ends it.
func TestMasterEndedReconnects(t *testing.T) {
	t.Parallel()
	env, c, _ := newEnv(t, "")
	ctx := context.Background()
	out, err := exec.Command("ssh", append(c.BaseArgs(), "-O", "exit", sshtest.Alias)...).CombinedOutput()
	require.NoError(t, err, "%s", out)
	// -O exit returns before the master is gone; a call in between
	// reaches the remote side all the same (ssh falls back to a direct
	// connection), but the test is about the master started anew.
	require.Eventually(t, func() bool { return !c.masterAlive() }, deadline, 10*time.Millisecond)
	res, err := env.Shell.Execute(ctx, "echo again", capabilities.ExecOptions{ThreadID: "t", RequestID: "again"})
	require.NoError(t, err)
	assert.Equal(t, 0, res.ExitCode)
	_, ok := c.check(ctx)
	require.True(t, ok)
	require.NoError(t, c.Close())
	_, ok = c.check(ctx)
	assert.False(t, ok, "the master outlived Close")
}
