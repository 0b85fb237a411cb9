package main

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/localshell"
	"github.com/magenta-nvim/magenta/pkg/nvimtest"
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
	require.Eventually(t, func() bool { return !sleepRunning(t, "7801") }, 30*time.Second, 10*time.Millisecond)
}

func sleepRunning(t *testing.T, arg string) bool {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	require.NoError(t, err)
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		if b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && string(b) == "sleep\x00"+arg+"\x00" {
			return true
		}
	}
	return false
}
