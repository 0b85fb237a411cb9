package memshell

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

func TestScriptedInteractiveCommand(t *testing.T) {
	term := NewTerminal()
	sh := New(Script{Command: "ask", Terminal: term})
	got := make(chan capabilities.Terminal, 1)
	type outcome struct {
		res *capabilities.ExecResult
		err error
	}
	out := make(chan outcome, 1)
	go func() {
		res, err := sh.Execute(context.Background(), "ask", capabilities.ExecOptions{Interactive: true, OnTerminal: func(tm capabilities.Terminal) { got <- tm }})
		out <- outcome{res, err}
	}()
	tm := <-got
	term.Output([]byte("name? "))
	var mu sync.Mutex
	var chunks []byte
	replay, cancel := tm.Subscribe(func(c []byte) { mu.Lock(); chunks = append(chunks, c...); mu.Unlock() })
	assert.Equal(t, "name? ", string(replay))
	_, err := tm.Write([]byte("Alice\r"))
	require.NoError(t, err)
	require.NoError(t, tm.Resize(10, 40))
	term.SetScreen("name? Alice")
	term.SetWaiting(true)
	assert.Equal(t, []string{"name? Alice"}, tm.Screen())
	assert.True(t, tm.WaitingForInput())
	mu.Lock()
	assert.Equal(t, "Alice\r\n", string(chunks), "input is echoed")
	mu.Unlock()
	assert.Equal(t, "Alice\r", term.Written())
	assert.Equal(t, [][2]int{{10, 40}}, term.Sizes())
	cancel()

	term.Exit(3)
	o := <-out
	require.NoError(t, o.err)
	assert.True(t, o.res.Interactive)
	assert.Equal(t, 3, o.res.ExitCode)
	<-tm.Done()
	_, err = tm.Write([]byte("x"))
	assert.ErrorIs(t, err, capabilities.ErrTerminalClosed)
	assert.ErrorIs(t, tm.Resize(1, 1), capabilities.ErrTerminalClosed)
	replay, _ = tm.Subscribe(func([]byte) { t.Error("no chunk after the end") })
	assert.Equal(t, "name? Alice\r\n", string(replay))
}

func TestScriptedInteractiveEndedWhileWaiting(t *testing.T) {
	term := NewTerminal()
	term.SetWaiting(true)
	sh := New(Script{Command: "ask", Terminal: term})
	res, err := sh.Execute(context.Background(), "ask", capabilities.ExecOptions{Interactive: true, Timeout: 10 * time.Millisecond})
	require.NoError(t, err)
	assert.True(t, res.TimedOut)
	assert.True(t, res.WaitingForInput)
	assert.Equal(t, "SIGTERM", res.Signal)
	<-term.Done()
}

func TestScriptedTerminalIgnoredWithoutInteractive(t *testing.T) {
	sh := New(Script{Command: "ask", Terminal: NewTerminal(), Result: capabilities.ExecResult{ExitCode: 1}})
	res, err := sh.Execute(context.Background(), "ask", capabilities.ExecOptions{OnTerminal: func(capabilities.Terminal) { t.Error("no terminal") }})
	require.NoError(t, err)
	assert.False(t, res.Interactive)
	assert.Equal(t, 1, res.ExitCode)
}
