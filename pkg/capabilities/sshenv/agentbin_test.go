package sshenv

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The machine's `uname -sm` picks the agent: this machine's own
// magenta-supervisor for its architecture, magenta-supervisor-linux-ARCH
// (make remote-agents) for another; other systems get none.
func TestAgentBinaries(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the native agent is Linux only")
	}
	dir := t.TempDir()
	other := "arm64"
	if runtime.GOARCH == "arm64" {
		other = "amd64"
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "magenta-supervisor"), []byte("native"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "magenta-supervisor-linux-"+other), []byte("other"), 0o755))
	bins := agentBinaries(dir)
	require.Len(t, bins, 2)
	byArch := map[string]agentBinary{}
	for _, b := range bins {
		byArch[b.arch] = b
	}
	native := byArch[runtime.GOARCH]
	assert.Equal(t, filepath.Join(dir, "magenta-supervisor"), native.path)
	assert.Regexp(t, `^agent-`+runtime.GOARCH+`-[0-9a-f]{16}$`, native.name)
	assert.Len(t, native.sum, 64)
	assert.Equal(t, int64(len("native")), native.size)
	assert.NotEqual(t, native.name[len(native.name)-16:], byArch[other].name[len(byArch[other].name)-16:], "named by content")
	assert.Empty(t, agentBinaries(""), "no directory: no agent")

	for uname, want := range map[string]string{"Linux x86_64": "amd64", "Linux aarch64": "arm64", "Linux armv7l": "arm", "Linux riscv64": "riscv64"} {
		got, ok := goArch(uname)
		assert.True(t, ok, uname)
		assert.Equal(t, want, got, uname)
	}
	for _, uname := range []string{"Darwin arm64", "FreeBSD amd64", "Linux mips", "", "Linux"} {
		_, ok := goArch(uname)
		assert.False(t, ok, uname)
	}
}
