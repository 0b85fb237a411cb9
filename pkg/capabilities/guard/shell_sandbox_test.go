package guard

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/approval"
	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/memshell"
)

const blockedWrite = "the sandbox blocked writing /home/u/.cache/x"

// threeWay allows ls, confines make and go (make install is blocked when
// confined), and asks for anything else.
func threeWay(command, _ string) BashVerdict {
	switch command {
	case "ls":
		return BashVerdict{Allow: true}
	case "make", "make install", "go test ./...":
		return BashVerdict{Sandbox: true, Reason: "runs `make`, which no rule allows"}
	}
	return BashVerdict{Reason: "runs `" + command + "`, which no rule allows"}
}

func sandboxSetup(available bool) (*Shell, *memshell.Shell, *approval.Broker) {
	inner := memshell.New(
		memshell.Script{Command: "make install", Blocked: blockedWrite, Result: capabilities.ExecResult{ExitCode: 2}},
		memshell.Script{Match: func(string) bool { return true }},
	)
	b := approval.NewBroker(nil)
	s := NewShell(inner, ShellOptions{
		Workspace: "/ws", Cwd: "/ws", Check: threeWay, Broker: b, Remembered: NewRemembered(),
		Sandbox: func() (bool, string) { return available, "bwrap not found" },
	})
	return s, inner, b
}

// sandboxed lists, per call, whether it asked to run confined.
func sandboxed(inner *memshell.Shell) []bool {
	var out []bool
	for _, c := range inner.Calls() {
		out = append(out, c.Opts.Sandbox)
	}
	return out
}

func TestSandboxVerdictRunsConfinedWithoutAsking(t *testing.T) {
	s, inner, b := sandboxSetup(true)
	res, err := s.Execute(context.Background(), "go test ./...", capabilities.ExecOptions{})
	require.NoError(t, err)
	assert.True(t, res.Confined)
	assert.Equal(t, []bool{true}, sandboxed(inner))
	assert.Empty(t, b.Pending(""))
}

// With the sandbox available, what the checker allows runs confined
// too; only what the user approved runs outside it.
func TestAllowedRunsConfinedAndApprovedRunsUnconfined(t *testing.T) {
	s, inner, b := sandboxSetup(true)
	res, err := s.Execute(context.Background(), "ls", capabilities.ExecOptions{})
	require.NoError(t, err)
	assert.True(t, res.Confined, "allowed: confined when the sandbox is there")
	go answerNext(t, b, approval.Allow)
	res, err = s.Execute(context.Background(), "git push", capabilities.ExecOptions{Sandbox: true})
	require.NoError(t, err)
	assert.False(t, res.Confined, "approved: runs as approved, outside the sandbox, whatever the caller set")
	assert.Equal(t, []bool{true, false}, sandboxed(inner))
}

// Without a sandbox an allowed command runs unconfined, as before; one
// the sandbox cannot start for (a workspace too large to scan) too,
// without asking: the checker proved it read-only.
func TestAllowedRunsUnconfinedWithoutASandbox(t *testing.T) {
	s, inner, b := sandboxSetup(false)
	res, err := s.Execute(context.Background(), "ls", capabilities.ExecOptions{})
	require.NoError(t, err)
	assert.False(t, res.Confined)
	assert.Equal(t, []bool{false}, sandboxed(inner))

	inner = memshell.New(memshell.Script{Match: func(string) bool { return true },
		ConfinedErr: errors.New("the workspace has more files than the sandbox scans")})
	s = NewShell(inner, ShellOptions{
		Workspace: "/ws", Cwd: "/ws", Check: threeWay, Broker: b, Remembered: NewRemembered(),
		Sandbox: func() (bool, string) { return true, "" },
	})
	res, err = s.Execute(context.Background(), "ls", capabilities.ExecOptions{})
	require.NoError(t, err)
	assert.False(t, res.Confined)
	assert.Equal(t, []bool{true, false}, sandboxed(inner))
	assert.Empty(t, b.Pending(""))
}

func TestSandboxVerdictAsksWhenTheSandboxIsOff(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    func() (*Shell, *memshell.Shell, *approval.Broker)
		why  string
	}{
		{"unavailable", func() (*Shell, *memshell.Shell, *approval.Broker) { return sandboxSetup(false) }, "bwrap not found"},
		{"not configured", func() (*Shell, *memshell.Shell, *approval.Broker) {
			inner := memshell.New(memshell.Script{Match: func(string) bool { return true }})
			b := approval.NewBroker(nil)
			return NewShell(inner, ShellOptions{Workspace: "/ws", Cwd: "/ws", Check: threeWay, Broker: b, Remembered: NewRemembered()}), inner, b
		}, "no sandbox is configured"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, inner, b := tc.s()
			done := make(chan approval.Request, 1)
			go func() { done <- answerNext(t, b, approval.Allow) }()
			res, err := s.Execute(context.Background(), "make", capabilities.ExecOptions{})
			require.NoError(t, err)
			assert.False(t, res.Confined)
			req := <-done
			assert.Equal(t, "runs `make`, which no rule allows; the sandbox that would run it confined is off ("+tc.why+")", req.Reason)
			assert.Equal(t, KindBash, req.Kind)
			assert.Equal(t, []bool{false}, sandboxed(inner))
		})
	}
}

func TestBlockedRunOffersToRunOutside(t *testing.T) {
	t.Run("yes runs it unconfined", func(t *testing.T) {
		s, inner, b := sandboxSetup(true)
		done := make(chan approval.Request, 1)
		go func() { done <- answerNext(t, b, approval.Allow) }()
		res, err := s.Execute(context.Background(), "make install", capabilities.ExecOptions{ThreadID: "t", RequestID: "tu_7"})
		require.NoError(t, err)
		req := <-done
		assert.Equal(t, blockedWrite+" — run it again outside the sandbox?", req.Reason)
		assert.Equal(t, "make install", req.Subject)
		assert.Equal(t, "tu_7", req.ToolUseID)
		assert.False(t, res.Confined)
		assert.Empty(t, res.Blocked)
		assert.Equal(t, []bool{true, false}, sandboxed(inner))
	})
	t.Run("no keeps the confined result", func(t *testing.T) {
		s, inner, b := sandboxSetup(true)
		go answerNext(t, b, approval.Deny)
		res, err := s.Execute(context.Background(), "make install", capabilities.ExecOptions{})
		require.NoError(t, err)
		assert.True(t, res.Confined)
		assert.Equal(t, blockedWrite, res.Blocked)
		assert.Equal(t, 2, res.ExitCode)
		assert.Equal(t, []bool{true}, sandboxed(inner))
	})
	t.Run("always is remembered for the command", func(t *testing.T) {
		s, inner, b := sandboxSetup(true)
		go answerNext(t, b, approval.AllowAlways)
		_, err := s.Execute(context.Background(), "make install", capabilities.ExecOptions{})
		require.NoError(t, err)
		res, err := s.Execute(context.Background(), "make install", capabilities.ExecOptions{})
		require.NoError(t, err, "no second question")
		assert.False(t, res.Confined, "remembered: runs unconfined, as approved")
		assert.Equal(t, []bool{true, false, false}, sandboxed(inner))
		assert.Empty(t, b.Pending(""))
	})
}

// An ALWAYS given to an ask covers the command from then on: it runs
// unconfined without asking, even where the sandbox could take it.
func TestAlwaysRunsUnconfinedAfterwards(t *testing.T) {
	s, inner, b := sandboxSetup(false)
	go answerNext(t, b, approval.AllowAlways)
	_, err := s.Execute(context.Background(), "make", capabilities.ExecOptions{})
	require.NoError(t, err)
	s.opts.Sandbox = func() (bool, string) { return true, "" }
	_, err = s.Execute(context.Background(), "make", capabilities.ExecOptions{})
	require.NoError(t, err)
	assert.Equal(t, []bool{false, false}, sandboxed(inner))
	assert.Empty(t, b.Pending(""))
}

// A shell that cannot confine returns an error: the guard never retries
// unconfined on its own, but asks; declined, nothing more runs.
func TestConfinedRunErrorAsksBeforeRunningUnconfined(t *testing.T) {
	cannot := errors.New("the workspace has more than 20000 files")
	inner := memshell.New(memshell.Script{Command: "make", Err: cannot})
	b := approval.NewBroker(nil)
	s := NewShell(inner, ShellOptions{Workspace: "/ws", Cwd: "/ws", Check: threeWay, Broker: b, Remembered: NewRemembered(),
		Sandbox: func() (bool, string) { return true, "" }})
	asked := make(chan approval.Request, 1)
	go func() { asked <- answerNext(t, b, approval.Deny) }()
	_, err := s.Execute(context.Background(), "make", capabilities.ExecOptions{})
	require.ErrorIs(t, err, capabilities.ErrPermissionDenied)
	req := <-asked
	assert.Contains(t, req.Reason, "could not run in the sandbox (the workspace has more than 20000 files)")
	assert.Equal(t, []bool{true}, sandboxed(inner), "declined: nothing ran unconfined")
}

// Aborting the thread while the re-run offer waits keeps the confined
// result and runs nothing more.
func TestAbortWhileOfferingTheRerunKeepsTheConfinedResult(t *testing.T) {
	s, inner, b := sandboxSetup(true)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan *capabilities.ExecResult, 1)
	go func() {
		res, err := s.Execute(ctx, "make install", capabilities.ExecOptions{})
		assert.NoError(t, err)
		done <- res
	}()
	deadline := time.Now().Add(30 * time.Second)
	for len(b.Pending("")) == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	require.Len(t, b.Pending(""), 1)
	cancel()
	res := <-done
	require.NotNil(t, res)
	assert.True(t, res.Confined)
	assert.Equal(t, blockedWrite, res.Blocked)
	assert.Equal(t, []bool{true}, sandboxed(inner))
	assert.Empty(t, b.Pending(""))
}
