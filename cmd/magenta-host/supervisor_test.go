package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/localshell"
	"github.com/magenta-nvim/magenta/pkg/nvimtest"
	"github.com/magenta-nvim/magenta/pkg/proctest"
)

// The built binary is the shell's process supervisor: a command's exit
// status comes through it, and a setsid escapee does not outlive the
// call.
func TestBinaryIsTheSupervisor(t *testing.T) {
	sh := localshell.New(localshell.Options{LogRoot: t.TempDir(), Supervisor: nvimtest.HostBinary(t)})
	res, err := sh.Execute(context.Background(), "setsid sleep 7801 & echo ok; exit 5", capabilities.ExecOptions{ThreadID: "t", RequestID: "r"})
	require.NoError(t, err)
	assert.Equal(t, 5, res.ExitCode)
	require.Len(t, res.Head, 1)
	assert.Equal(t, "ok", res.Head[0].Text)
	require.Eventually(t, func() bool { return !proctest.CommandRunning("sleep", "7801") }, 30*time.Second, 10*time.Millisecond)
}
