package guard

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/approval"
	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

type recordShell struct {
	mu   sync.Mutex
	runs []string
}

func (r *recordShell) Execute(_ context.Context, command string, _ capabilities.ExecOptions) (*capabilities.ExecResult, error) {
	r.mu.Lock()
	r.runs = append(r.runs, command)
	r.mu.Unlock()
	return &capabilities.ExecResult{}, nil
}

func (r *recordShell) ran() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.runs...)
}

// onlyLs allows "ls" and asks for anything else.
func onlyLs(command, _ string) BashVerdict {
	if command == "ls" {
		return BashVerdict{Allow: true}
	}
	return BashVerdict{Reason: "runs `" + command + "`, which no rule allows"}
}

func setup() (*Shell, *recordShell, *approval.Broker) {
	inner := &recordShell{}
	b := approval.NewBroker(nil)
	s := NewShell(inner, ShellOptions{Workspace: "/ws", Cwd: "/ws", Check: onlyLs, Broker: b, Remembered: NewRemembered()})
	return s, inner, b
}

// answerNext answers the first request to appear, within a deadline. It
// runs on its own goroutine, so it reports failures with assert.
func answerNext(t *testing.T, b *approval.Broker, d approval.Decision) approval.Request {
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if req, ok := b.Oldest(); ok {
			assert.True(t, b.Answer(req.ID, d))
			return req
		}
		time.Sleep(time.Millisecond)
	}
	assert.Fail(t, "no approval request")
	return approval.Request{}
}

func TestAllowedCommandRunsWithoutAsking(t *testing.T) {
	s, inner, b := setup()
	_, err := s.Execute(context.Background(), "ls", capabilities.ExecOptions{})
	require.NoError(t, err)
	assert.Equal(t, []string{"ls"}, inner.ran())
	assert.Empty(t, b.Pending(""))
}

func TestDeclinedCommandDoesNotRun(t *testing.T) {
	s, inner, b := setup()
	go func() {
		req := answerNext(t, b, approval.Deny)
		assert.Equal(t, "rm -rf x", req.Subject)
		assert.Equal(t, "runs `rm -rf x`, which no rule allows", req.Reason)
		assert.Equal(t, "tu_1", req.ToolUseID)
	}()
	_, err := s.Execute(context.Background(), "rm -rf x", capabilities.ExecOptions{ThreadID: "t", RequestID: "tu_1"})
	require.ErrorIs(t, err, capabilities.ErrPermissionDenied)
	assert.Contains(t, err.Error(), "the user declined")
	assert.Empty(t, inner.ran())
}

func TestAlwaysIsRememberedForTheExactCommand(t *testing.T) {
	s, inner, b := setup()
	go answerNext(t, b, approval.AllowAlways)
	_, err := s.Execute(context.Background(), "make test", capabilities.ExecOptions{})
	require.NoError(t, err)
	_, err = s.Execute(context.Background(), "make test", capabilities.ExecOptions{})
	require.NoError(t, err, "asked no second time")
	assert.Equal(t, []string{"make test", "make test"}, inner.ran())
	go answerNext(t, b, approval.Allow)
	_, err = s.Execute(context.Background(), "make test ", capabilities.ExecOptions{})
	require.NoError(t, err, "another command string asks again")
}

func TestWorkdirOutsideWorkspaceAsks(t *testing.T) {
	s, inner, b := setup()
	go func() {
		req := answerNext(t, b, approval.Allow)
		assert.Equal(t, "runs in /etc, outside the workspace", req.Reason)
	}()
	_, err := s.Execute(context.Background(), "ls", capabilities.ExecOptions{Cwd: "/etc"})
	require.NoError(t, err)
	assert.Equal(t, []string{"ls"}, inner.ran())
}

func TestAbortWithdrawsTheRequest(t *testing.T) {
	s, inner, b := setup()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := s.Execute(ctx, "rm x", capabilities.ExecOptions{})
		done <- err
	}()
	deadline := time.Now().Add(5 * time.Second)
	for len(b.Pending("")) == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	cancel()
	err := <-done
	assert.True(t, errors.Is(err, capabilities.ErrPermissionDenied))
	assert.Contains(t, err.Error(), "aborted")
	assert.Empty(t, inner.ran())
	assert.Empty(t, b.Pending(""))
}

// Regression: ALWAYS was keyed by the command string alone, and the model
// chooses the working directory, so an ALWAYS for `rm -rf build` in the
// workspace also covered `rm -rf build` run in $HOME. The answer now
// covers the command in the same physical directory only.
func TestAlwaysCoversTheCommandInItsWorkingDirectoryOnly(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(ws, "sub"), 0o755))
	require.NoError(t, os.Symlink(home, filepath.Join(ws, "home-link")))
	inner := &recordShell{}
	b := approval.NewBroker(nil)
	s := NewShell(inner, ShellOptions{Workspace: ws, Cwd: ws, Check: onlyLs, Broker: b, Remembered: NewRemembered()})
	ctx := context.Background()

	go answerNext(t, b, approval.AllowAlways)
	_, err := s.Execute(ctx, "rm -rf build", capabilities.ExecOptions{Cwd: ws})
	require.NoError(t, err)
	_, err = s.Execute(ctx, "rm -rf build", capabilities.ExecOptions{})
	require.NoError(t, err, "the default working directory is the same one: no second question")
	_, err = s.Execute(ctx, "rm -rf build", capabilities.ExecOptions{Cwd: ws + "/./"})
	require.NoError(t, err, "another spelling of the same directory: no second question")
	assert.Empty(t, b.Pending(""))

	for _, cwd := range []string{home, filepath.Join(ws, "sub"), filepath.Join(ws, "home-link")} {
		done := make(chan approval.Request, 1)
		go func() { done <- answerNext(t, b, approval.Deny) }()
		_, err = s.Execute(ctx, "rm -rf build", capabilities.ExecOptions{Cwd: cwd})
		require.ErrorIs(t, err, capabilities.ErrPermissionDenied, cwd)
		assert.Equal(t, "rm -rf build", (<-done).Subject, cwd)
	}
	assert.Len(t, inner.ran(), 3)
}

// optsShell keeps the options of the last call.
type optsShell struct{ got capabilities.ExecOptions }

func (o *optsShell) Execute(_ context.Context, _ string, opts capabilities.ExecOptions) (*capabilities.ExecResult, error) {
	o.got = opts
	return &capabilities.ExecResult{}, nil
}

// The interactive fields reach the inner shell unchanged, allowed or
// approved.
func TestShellPassesInteractiveOptions(t *testing.T) {
	inner := &optsShell{}
	b := approval.NewBroker(nil)
	s := NewShell(inner, ShellOptions{Workspace: "/ws", Cwd: "/ws", Check: onlyLs, Broker: b, Remembered: NewRemembered()})
	called := false
	opts := capabilities.ExecOptions{Interactive: true, OnTerminal: func(capabilities.Terminal) { called = true }}
	_, err := s.Execute(context.Background(), "ls", opts)
	require.NoError(t, err)
	assert.True(t, inner.got.Interactive)
	require.NotNil(t, inner.got.OnTerminal)
	inner.got.OnTerminal(nil)
	assert.True(t, called)

	inner.got = capabilities.ExecOptions{}
	go answerNext(t, b, approval.Allow)
	_, err = s.Execute(context.Background(), "npm init", opts)
	require.NoError(t, err)
	assert.True(t, inner.got.Interactive)
	assert.NotNil(t, inner.got.OnTerminal)
}
