package memshell

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

func TestScriptedResultAndStreaming(t *testing.T) {
	var lines []capabilities.OutputLine
	for i := 1; i <= 50; i++ {
		lines = append(lines, capabilities.OutputLine{Text: strconv.Itoa(i)})
	}
	sh := New(
		Script{Command: "seq 1 50", Lines: lines, Result: capabilities.ExecResult{LogPath: "/log"}},
		Script{Match: func(c string) bool { return strings.HasPrefix(c, "exit ") }, Result: capabilities.ExecResult{ExitCode: 3}},
	)
	var seen []string
	res, err := sh.Execute(context.Background(), "seq 1 50", capabilities.ExecOptions{
		RequestID: "r1", OnOutput: func(l capabilities.OutputLine) { seen = append(seen, l.Text) }})
	require.NoError(t, err)
	assert.Len(t, seen, 50)
	assert.Equal(t, 50, res.TotalLines)
	require.Len(t, res.Head, capabilities.ShellHeadLines)
	require.Len(t, res.Tail, capabilities.ShellTailLines)
	assert.Equal(t, "31", res.Tail[0].Text)
	assert.Equal(t, "/log", res.LogPath)

	res, err = sh.Execute(context.Background(), "exit 3", capabilities.ExecOptions{})
	require.NoError(t, err)
	assert.Equal(t, 3, res.ExitCode)

	calls := sh.Calls()
	require.Len(t, calls, 2)
	assert.Equal(t, "seq 1 50", calls[0].Command)
	assert.Equal(t, "r1", calls[0].Opts.RequestID)
}

func TestUnscriptedAndErr(t *testing.T) {
	boom := errors.New("boom")
	sh := New(Script{Command: "fail", Err: boom})
	_, err := sh.Execute(context.Background(), "rm -rf /", capabilities.ExecOptions{})
	assert.ErrorContains(t, err, `unscripted command "rm -rf /"`)
	_, err = sh.Execute(context.Background(), "fail", capabilities.ExecOptions{})
	assert.ErrorIs(t, err, boom)
	assert.Len(t, sh.Calls(), 2)
}

func TestBlockUntilCancelOrTimeout(t *testing.T) {
	sh := New(Script{Command: "sleep", Block: true, Lines: []capabilities.OutputLine{{Text: "started"}}})
	ctx, cancel := context.WithCancel(context.Background())
	res, err := sh.Execute(ctx, "sleep", capabilities.ExecOptions{OnOutput: func(capabilities.OutputLine) { cancel() }})
	require.NoError(t, err)
	assert.True(t, res.Cancelled)
	assert.Equal(t, -1, res.ExitCode)
	assert.Equal(t, "SIGTERM", res.Signal)
	assert.Equal(t, 1, res.TotalLines)

	res, err = sh.Execute(context.Background(), "sleep", capabilities.ExecOptions{Timeout: 10 * time.Millisecond})
	require.NoError(t, err)
	assert.True(t, res.TimedOut)
	assert.False(t, res.Cancelled)
}

func TestRetain(t *testing.T) {
	h, tl, n := Retain([]capabilities.OutputLine{{Text: "a"}, {Text: "b"}})
	assert.Len(t, h, 2)
	assert.Empty(t, tl)
	assert.Equal(t, 2, n)
	h, tl, n = Retain(nil)
	assert.Empty(t, h)
	assert.Empty(t, tl)
	assert.Zero(t, n)
}

func TestOnStartReportsTheTimeout(t *testing.T) {
	sh := New(Script{Command: "x"})
	var got []time.Duration
	for _, timeout := range []time.Duration{0, time.Second} {
		_, err := sh.Execute(context.Background(), "x", capabilities.ExecOptions{Timeout: timeout, OnStart: func(d time.Duration) { got = append(got, d) }})
		require.NoError(t, err)
	}
	assert.Equal(t, []time.Duration{capabilities.ShellDefaultTimeout, time.Second}, got)
}

func TestSandboxIsRecordedAndOnlyConfinedRunsAreBlocked(t *testing.T) {
	s := New(Script{Command: "make", Blocked: "the sandbox blocked writing /home/u/x"})
	confined, err := s.Execute(context.Background(), "make", capabilities.ExecOptions{Sandbox: true})
	if err != nil {
		t.Fatal(err)
	}
	free, err := s.Execute(context.Background(), "make", capabilities.ExecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !confined.Confined || confined.Blocked != "the sandbox blocked writing /home/u/x" {
		t.Errorf("confined run: %+v", confined)
	}
	if free.Confined || free.Blocked != "" {
		t.Errorf("unconfined run: %+v", free)
	}
	if calls := s.Calls(); len(calls) != 2 || !calls[0].Opts.Sandbox || calls[1].Opts.Sandbox {
		t.Errorf("calls: %+v", calls)
	}
}
