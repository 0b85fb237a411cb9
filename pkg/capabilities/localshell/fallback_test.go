package localshell

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// notTakingConfiner starts nothing itself: its Start says the command
// was not taken, and its Fallback runs it under env(1) with a marker.
type notTakingConfiner struct{ started *bool }

func (c notTakingConfiner) Confine(_ string, env []string, _ bool) (Confinement, error) {
	return Confinement{
		Env: env,
		Start: func(*exec.Cmd) (Started, error) {
			*c.started = true
			return nil, errors.Join(ErrNotTaken, errors.New("the parent is gone"))
		},
		Fallback: func() (Confinement, error) {
			return Confinement{Argv: []string{"env", "MAGENTA_FALLBACK=yes"}, Env: env}, nil
		},
	}, nil
}

func (notTakingConfiner) Blocked([]byte, int) string { return "" }

// A command the confinement parent did not take runs the fallback way,
// with its output where the first way would have put it.
func TestConfinedCommandNotTakenRunsTheFallback(t *testing.T) {
	var started bool
	sh := New(Options{LogRoot: t.TempDir(), Cwd: t.TempDir(), Env: os.Environ(), Confiner: notTakingConfiner{&started}})
	res, err := sh.Execute(context.Background(), `echo "fallback=$MAGENTA_FALLBACK"; echo err >&2`,
		capabilities.ExecOptions{ThreadID: "t", RequestID: "r", Sandbox: true, Timeout: time.Minute})
	require.NoError(t, err)
	assert.True(t, started, "Start was tried first")
	assert.True(t, res.Confined)
	assert.Equal(t, 0, res.ExitCode)
	out := strings.Join(lines(res), "\n")
	assert.Contains(t, out, "fallback=yes")
	assert.Contains(t, out, "err")
}
