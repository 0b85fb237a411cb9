package sandboxtest_test

import (
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/sandbox/sandboxtest"
)

// childEnv marks the re-run of this test binary in which Require meets a
// PATH without bwrap.
const childEnv = "SANDBOXTEST_CHILD"

func TestRequireWithoutBwrap(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		sandboxtest.Require(t)
		t.Log("REACHED: Require returned")
		return
	}
	self, err := os.Executable()
	require.NoError(t, err)
	run := func(ci string) (string, error) {
		cmd := exec.Command(self, "-test.run=^TestRequireWithoutBwrap$", "-test.v")
		cmd.Env = append(os.Environ(), childEnv+"=1", "PATH=/nonexistent", "CI="+ci)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}

	out, err := run("")
	require.NoError(t, err, out)
	assert.Contains(t, out, "--- SKIP")
	assert.Contains(t, out, "sandbox unavailable: bwrap not found on PATH")

	out, err = run("true")
	require.Error(t, err, "CI must fail, not skip: %s", out)
	assert.Contains(t, out, "--- FAIL")
	assert.Contains(t, out, "sandbox unavailable on CI")
	assert.NotContains(t, out, "REACHED")
}
