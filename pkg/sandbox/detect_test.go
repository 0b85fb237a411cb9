package sandbox_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/sandbox"
	"github.com/magenta-nvim/magenta/pkg/sandbox/sandboxtest"
)

func TestDetectFindsWorkingBwrap(t *testing.T) {
	st := sandboxtest.Require(t)
	assert.True(t, st.Available)
	assert.Empty(t, st.Reason)
	assert.True(t, filepath.IsAbs(st.Path), st.Path)
	assert.NotEmpty(t, st.Version)

	again := sandbox.Detect(context.Background(), st.Path)
	assert.Equal(t, st, again, "an explicit path gives the same answer as PATH")
}

// The failure reasons, with stand-in executables for the bwraps this
// machine does not have (missing, too old, refused by the kernel, hung).
func TestDetectSaysWhyNot(t *testing.T) {
	dir := t.TempDir()
	fake := func(name, script string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte("#!/bin/sh\n"+script), 0o755))
		return path
	}
	old := fake("old", `echo "bubblewrap 0.3.0"`)
	noUserNS := fake("nons", `[ "$1" = --version ] && { echo "bubblewrap 0.8.0"; exit 0; }
echo "bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces." >&2; exit 1`)
	garbled := fake("garbled", `echo "usage: bwrap"`)
	sleep, err := exec.LookPath("sleep")
	require.NoError(t, err)
	hung := fake("hung", `[ "$1" = --version ] && { echo "bubblewrap 0.8.0"; exit 0; }
exec `+sleep+` 60`)

	t.Setenv("PATH", dir)
	st := sandbox.Detect(context.Background(), "")
	assert.False(t, st.Available)
	assert.Equal(t, "bwrap not found on PATH (install bubblewrap)", st.Reason)

	st = sandbox.Detect(context.Background(), filepath.Join(dir, "absent"))
	assert.False(t, st.Available)
	assert.Contains(t, st.Reason, "bwrap not found at "+filepath.Join(dir, "absent"))

	st = sandbox.Detect(context.Background(), old)
	assert.Equal(t, sandbox.Status{Reason: "bwrap 0.3.0 is too old (need ≥ 0.4.0)", Version: "0.3.0", Path: old}, st)

	st = sandbox.Detect(context.Background(), noUserNS)
	assert.False(t, st.Available)
	assert.Contains(t, st.Reason, "bwrap cannot create the sandbox")
	assert.Contains(t, st.Reason, "non-privileged user namespaces")

	st = sandbox.Detect(context.Background(), garbled)
	assert.False(t, st.Available)
	assert.Contains(t, st.Reason, `gave no version: "usage: bwrap"`)

	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	st = sandbox.Detect(ctx, hung)
	assert.False(t, st.Available)
	assert.Contains(t, st.Reason, "bwrap cannot create the sandbox")
	assert.Contains(t, st.Reason, "signal: killed", "the trial was stopped by the deadline")
}
