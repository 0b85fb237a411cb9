package hooks

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func hookOf(ev Event, command string, timeout time.Duration) Hook {
	return Hook{Event: ev, Command: command, Timeout: timeout, Source: SourceSetup, match: matcher{all: true}}
}

func runHook(t *testing.T, ev Event, command string, timeout time.Duration) verdict {
	t.Helper()
	return read(ev, execute(context.Background(), BashPlace(t.TempDir(), nil, ""), hookOf(ev, command, timeout), []byte(`{"hook_event_name":"`+string(ev)+`"}`)))
}

func TestExitCodesAndJSON(t *testing.T) {
	v := runHook(t, PreToolUse, `cat >/dev/null; echo "no rm -rf here" >&2; exit 2`, time.Minute)
	assert.True(t, v.block)
	assert.Equal(t, "no rm -rf here", v.reason)

	v = runHook(t, PreToolUse, `echo oops >&2; exit 1`, time.Minute)
	assert.False(t, v.block)
	assert.True(t, v.failed)
	assert.Equal(t, []string{"failed with exit status 1: oops"}, v.notes)

	v = runHook(t, PreToolUse, `echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "not on Fridays"}}'`, time.Minute)
	assert.True(t, v.block)
	assert.Equal(t, "not on Fridays", v.reason)

	v = runHook(t, PreToolUse, `echo '{"decision": "block", "reason": "legacy"}'`, time.Minute)
	assert.True(t, v.block)
	assert.Equal(t, "legacy", v.reason)

	v = runHook(t, PreToolUse, `echo '{"hookSpecificOutput": {"permissionDecision": "ask", "permissionDecisionReason": "sure?"}, "systemMessage": "asked"}'`, time.Minute)
	assert.True(t, v.ask)
	assert.Equal(t, "sure?", v.reason)
	assert.Equal(t, []string{"asked"}, v.notes)

	v = runHook(t, UserPromptSubmit, `echo "the date is today"`, time.Minute)
	assert.Equal(t, "the date is today", v.context, "a prompt hook's plain stdout is context")
	v = runHook(t, PreToolUse, `echo "chatter"`, time.Minute)
	assert.Empty(t, v.context, "a tool hook's plain stdout is not")
	assert.False(t, v.failed)

	v = runHook(t, UserPromptSubmit, `echo '{"decision": "block", "reason": "not now", "hookSpecificOutput": {"additionalContext": "x"}}'`, time.Minute)
	assert.True(t, v.block)
	assert.Equal(t, "not now", v.reason)
	v = runHook(t, SessionStart, `echo '{"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "rules"}}'`, time.Minute)
	assert.Equal(t, "rules", v.context)
	v = runHook(t, Stop, `echo '{"continue": false, "stopReason": "enough"}'`, time.Minute)
	assert.True(t, v.stop)
	assert.Equal(t, "enough", v.stopReason)

	v = runHook(t, PreToolUse, `echo '{"decision": 5'`, time.Minute)
	assert.True(t, v.failed)
	assert.False(t, v.block)
	assert.Contains(t, v.notes[0], "printed JSON magenta could not read")
}

// Garbage on stdout and stderr reaches the user and the model as valid
// text without control characters.
func TestGarbageIsCleaned(t *testing.T) {
	v := runHook(t, UserPromptSubmit, `printf 'a\033[31mred\x00\xff\xfe b\r\n'; printf 'why\033]0;title\a' >&2; exit 2`, time.Minute)
	assert.True(t, v.block)
	assert.Equal(t, "why]0;title", v.reason)
	v = runHook(t, UserPromptSubmit, `head -c 3000 /dev/urandom`, time.Minute)
	for _, r := range v.context {
		assert.False(t, r < 0x20 && r != '\n' && r != '\t', "control character %q", r)
	}
}

// A hook printing 10 MB is read to the end, kept to MaxOutput, and the
// note says how much there was.
func TestHugeOutputIsBounded(t *testing.T) {
	v := runHook(t, UserPromptSubmit, `head -c 10485760 /dev/zero | tr '\0' x; head -c 200000 /dev/zero | tr '\0' y >&2; exit 1`, time.Minute)
	assert.True(t, v.failed)
	assert.Contains(t, strings.Join(v.notes, "\n"), "it wrote 10.0 MB on stdout; magenta read the first 64 KiB")
	assert.Contains(t, strings.Join(v.notes, "\n"), "it wrote 195 KiB on stderr")
	assert.LessOrEqual(t, len(v.notes[len(v.notes)-1]), 400, "the failure's note quotes the start of stderr")
}

// A hook that hangs is stopped at its timeout with its whole process
// group, a child that ignores SIGTERM included, and the note says so.
func TestHangingHookIsKilledWithItsGroup(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	start := time.Now()
	r := execute(context.Background(), BashPlace(dir, nil, ""), hookOf(PreToolUse, `trap '' TERM; (trap '' TERM; sleep 300) & echo $! > child.pid; sleep 300`, 300*time.Millisecond), nil)
	took := time.Since(start)
	v := read(PreToolUse, r)
	assert.True(t, v.failed)
	assert.Equal(t, "timed out after 300ms and was stopped", v.notes[0])
	assert.Less(t, took, 300*time.Millisecond+killGrace+2*time.Second)
	data, err := os.ReadFile(pidFile)
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	require.NoError(t, err)
	waitGone(t, pid)
}

// Aborting the turn (the context) stops a running hook at once.
func TestCancelStopsTheHook(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan run, 1)
	go func() {
		done <- execute(ctx, BashPlace(t.TempDir(), nil, ""), hookOf(PreToolUse, `sleep 300`, time.Hour), nil)
	}()
	time.AfterFunc(100*time.Millisecond, cancel)
	select {
	case r := <-done:
		assert.True(t, r.cancelled)
		assert.Equal(t, "was stopped: the turn was aborted", read(PreToolUse, r).notes[0])
	case <-time.After(10 * time.Second):
		t.Fatal("the hook outlived the abort")
	}
}

// A hook that exits at once but leaves a child holding its stdout does
// not hold the call, and the child goes with its group.
func TestABackgroundChildDoesNotHoldTheCall(t *testing.T) {
	dir := t.TempDir()
	start := time.Now()
	r := execute(context.Background(), BashPlace(dir, nil, ""), hookOf(PreToolUse, `sleep 300 & echo $! > child.pid; exit 0`, time.Minute), nil)
	assert.Less(t, time.Since(start), 5*time.Second)
	assert.Equal(t, 0, r.exitCode)
	data, err := os.ReadFile(filepath.Join(dir, "child.pid"))
	require.NoError(t, err)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	waitGone(t, pid)
}

// The input arrives on stdin and CLAUDE_PROJECT_DIR is the thread's
// directory; a hook that never reads a large input still ends.
func TestInputAndEnvironment(t *testing.T) {
	dir := t.TempDir()
	r := execute(context.Background(), BashPlace(dir, nil, ""), hookOf(UserPromptSubmit, `cat; echo; echo "$CLAUDE_PROJECT_DIR"; pwd`, time.Minute), []byte(`{"prompt":"hi"}`))
	assert.Equal(t, `{"prompt":"hi"}`+"\n"+dir+"\n"+dir+"\n", string(r.stdout.buf))
	big := []byte(strings.Repeat("x", 4<<20))
	r = execute(context.Background(), BashPlace(dir, nil, ""), hookOf(UserPromptSubmit, `exit 0`, 10*time.Second), big)
	assert.Equal(t, 0, r.exitCode)
	assert.False(t, r.timedOut)
}

// waitGone waits until pid is no more (or a zombie nobody reaps).
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if err := syscall.Kill(pid, 0); err != nil {
			return
		}
		if st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil && strings.Contains(string(st), ") Z ") {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("process %d outlived its hook", pid)
}
