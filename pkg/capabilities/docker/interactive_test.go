package docker

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// startInteractive runs command with Interactive set on a goroutine and
// returns its Terminal and a channel with the result.
func startInteractive(t *testing.T, ctx context.Context, sh capabilities.Shell, command string) (capabilities.Terminal, <-chan *capabilities.ExecResult) {
	t.Helper()
	terms := make(chan capabilities.Terminal, 1)
	results := make(chan *capabilities.ExecResult, 1)
	go func() {
		res, err := sh.Execute(ctx, command, capabilities.ExecOptions{ThreadID: "t", RequestID: "interactive", Interactive: true,
			OnTerminal: func(term capabilities.Terminal) { terms <- term }})
		assert.NoError(t, err)
		results <- res
	}()
	select {
	case term := <-terms:
		return term, results
	case res := <-results:
		t.Fatalf("ended without a terminal: %+v", res)
	case <-time.After(deadline):
		t.Fatal("OnTerminal was not called")
	}
	return nil, nil
}

func waitResult(t *testing.T, results <-chan *capabilities.ExecResult) *capabilities.ExecResult {
	t.Helper()
	select {
	case res := <-results:
		return res
	case <-time.After(deadline):
		t.Fatal("the interactive command did not end")
		return nil
	}
}

func waitScreen(t *testing.T, term capabilities.Terminal, want string) {
	t.Helper()
	require.Eventually(t, func() bool { return strings.Contains(strings.Join(term.Screen(), "\n"), want) },
		deadline, 10*time.Millisecond, "screen never showed %q: %q", want, term.Screen())
}

func lineTexts(r *capabilities.ExecResult) []string {
	var out []string
	for _, l := range append(append([]capabilities.OutputLine{}, r.Head...), r.Tail...) {
		out = append(out, l.Text)
	}
	return out
}

func TestShellInteractiveReadAnswered(t *testing.T) {
	env, name := newEnv(t, "")
	term, results := startInteractive(t, context.Background(), env.Shell, `read -p "Enter your name: " name && echo "Hello, $name"; `+
		// The CLI relays a resize asynchronously: give it a moment.
		`for ((i = 0; i < 200; i++)); do [ "$(stty size)" = "30 77" ] && break; sleep 0.05; done; echo "size $(stty size)"`)
	waitScreen(t, term, "Enter your name:")
	require.NoError(t, term.Resize(30, 77)) // the CLI passes it on
	_, err := term.Write([]byte("Alice\r"))
	require.NoError(t, err)
	res := waitResult(t, results)
	assert.True(t, res.Interactive)
	assert.Equal(t, 0, res.ExitCode)
	assert.Contains(t, lineTexts(res), "Hello, Alice")
	assert.Contains(t, lineTexts(res), "size 30 77")
	waitNoProcesses(t, name)
}

func TestShellInteractiveCtrlC(t *testing.T) {
	env, name := newEnv(t, "")
	term, results := startInteractive(t, context.Background(), env.Shell, "echo ready; sleep 997")
	waitScreen(t, term, "ready")
	_, err := term.Write([]byte("\x03"))
	require.NoError(t, err)
	res := waitResult(t, results)
	assert.False(t, res.Cancelled || res.TimedOut)
	assert.NotEqual(t, 0, res.ExitCode)
	waitNoProcesses(t, name)
}

func TestShellInteractiveCancelEndsTheCommandInside(t *testing.T) {
	env, name := newEnv(t, "")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	term, results := startInteractive(t, ctx, env.Shell, `setsid sleep 996 & read -p "Continue? " x`)
	waitScreen(t, term, "Continue?")
	require.Eventually(t, term.WaitingForInput, deadline, 20*time.Millisecond)
	cancel()
	res := waitResult(t, results)
	assert.True(t, res.Cancelled)
	assert.True(t, res.WaitingForInput)
	waitNoProcesses(t, name)
}
