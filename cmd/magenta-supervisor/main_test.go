package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/localshell"
	"github.com/magenta-nvim/magenta/pkg/proctest"
)

// build compiles this command into a temporary directory.
func build(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "magenta-supervisor")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, string(out))
	return bin
}

// The small binary supervises as the host did: the exit status comes
// through it, bash runs under it, a setsid escapee does not outlive the
// call, and an interactive command gets its terminal.
func TestSmallBinaryIsTheSupervisor(t *testing.T) {
	bin := build(t)
	sh := localshell.New(localshell.Options{LogRoot: t.TempDir(), Supervisor: bin})
	res, err := sh.Execute(context.Background(), "setsid sleep 7802 & cat /proc/$PPID/comm; exit 5", capabilities.ExecOptions{ThreadID: "t", RequestID: "r"})
	require.NoError(t, err)
	assert.Equal(t, 5, res.ExitCode)
	require.Len(t, res.Head, 1)
	assert.Equal(t, "magenta-supervi", res.Head[0].Text, "bash's parent is the small supervisor (comm is cut at 15 bytes)")
	require.Eventually(t, func() bool { return !proctest.CommandRunning("sleep", "7802") }, 30*time.Second, 10*time.Millisecond)

	res, err = sh.Execute(context.Background(), "test -t 0 && echo tty", capabilities.ExecOptions{ThreadID: "t", RequestID: "i", Interactive: true})
	require.NoError(t, err)
	require.True(t, res.Interactive, res.NotInteractive)
	assert.Equal(t, 0, res.ExitCode)
	assert.Contains(t, res.Head[0].Text, "tty")
}

// Run by hand it says what it is and exits 2; --version names the build.
func TestRunByHand(t *testing.T) {
	bin := build(t)
	out, err := exec.Command(bin).CombinedOutput()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	assert.Equal(t, 2, exit.ExitCode())
	assert.Contains(t, string(out), "not meant to be run by hand")
	out, err = exec.Command(bin, "--version").Output()
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(out), "magenta-supervisor "), string(out))
}
