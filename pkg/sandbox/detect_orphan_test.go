package sandbox_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/proctest"
	"github.com/magenta-nvim/magenta/pkg/sandbox"
)

// detectEnv makes the test binary a host that starts the detection with
// the fake bwrap it names and exits while the trial still runs.
const detectEnv = "SANDBOX_TEST_DETECT"

func detectThenExit(fake string) {
	go sandbox.Detect(context.Background(), fake)
	started := filepath.Join(filepath.Dir(fake), "pid")
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		if b, err := os.ReadFile(started); err == nil && strings.HasSuffix(string(b), "\n") {
			os.Exit(0)
		}
	}
	os.Exit(3)
}

// A host that exits while its background detection runs leaves no bwrap
// behind: the trial sandbox dies with it.
func TestDetectLeavesNothingWhenTheHostExits(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "bwrap")
	require.NoError(t, os.WriteFile(fake, []byte(`#!/bin/sh
[ "$1" = --version ] && { echo "bubblewrap 0.8.0"; exit 0; }
echo $$ > `+filepath.Join(dir, "pid.tmp")+` && mv `+filepath.Join(dir, "pid.tmp")+` `+filepath.Join(dir, "pid")+`
exec sleep 60
`), 0o755))
	self, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(self, "-test.run=^$")
	cmd.Env = append(os.Environ(), detectEnv+"="+fake)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	b, err := os.ReadFile(filepath.Join(dir, "pid"))
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	require.NoError(t, err)
	require.Eventually(t, func() bool { return !proctest.Alive(pid) }, 10*time.Second, 10*time.Millisecond,
		"the trial bwrap (pid %d) outlived the host", pid)
}
