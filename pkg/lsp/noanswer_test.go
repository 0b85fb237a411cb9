package lsp

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/neovim/go-client/nvim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// heldEditor is a Neovim holding exec_lua (at a prompt) until release is
// closed; mode is what nvim_get_mode answers (nil: it never answers).
type heldEditor struct {
	release chan struct{}
	mode    *nvim.Mode
}

func (e *heldEditor) ExecLua(string, any, ...any) error {
	<-e.release
	return nil
}

func (e *heldEditor) Mode() (*nvim.Mode, error) {
	if e.mode == nil {
		<-e.release
		return nil, errors.New("closed")
	}
	return e.mode, nil
}

func heldAdapter(t *testing.T, mode *nvim.Mode) *Adapter {
	ed := &heldEditor{release: make(chan struct{}), mode: mode}
	t.Cleanup(func() { close(ed.release) })
	a := New(ed)
	a.timeout, a.modeWait = 20*time.Millisecond, 20*time.Millisecond
	return a
}

// A request Neovim holds — exec_lua itself never returns while a prompt
// shows — ends at the timeout with what Neovim waits at and what to do,
// not "context deadline exceeded".
func TestNoAnswerNamesThePrompt(t *testing.T) {
	for _, c := range []struct {
		mode *nvim.Mode
		want string
	}{
		{&nvim.Mode{Mode: "r", Blocking: true}, `it is waiting for the user at a "Press ENTER" prompt (hit-enter)`},
		{&nvim.Mode{Mode: "rm", Blocking: true}, `a "-- More --" prompt`},
		{&nvim.Mode{Mode: "c", Blocking: true}, `a command line (an input() question or a pending ":" command)`},
		{&nvim.Mode{Mode: "n"}, `most likely held by a prompt such as "Press ENTER" or a pending ":" command that has been answered since`},
		{nil, "it does not answer at all now"},
	} {
		a := heldAdapter(t, c.mode)
		_, err := a.Hover(context.Background(), "/w/main.go", capabilities.Position{})
		var noAnswer *NoAnswerError
		require.ErrorAs(t, err, &noAnswer)
		assert.Contains(t, err.Error(), "textDocument/hover on /w/main.go: Neovim did not answer within 20ms")
		assert.Contains(t, err.Error(), c.want)
		assert.Contains(t, err.Error(), "call the tool again once Neovim answers")
		assert.NotContains(t, err.Error(), "deadline exceeded")
	}
}

// The user's abort is no timeout: it says so plainly.
func TestCancelledRequestIsNoNoAnswer(t *testing.T) {
	a := heldAdapter(t, &nvim.Mode{Mode: "r", Blocking: true})
	a.timeout = time.Hour
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := a.Diagnostics(ctx, "")
	require.ErrorIs(t, err, context.Canceled)
	var noAnswer *NoAnswerError
	assert.False(t, errors.As(err, &noAnswer))
}
