package posixremote

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/capabilitytest"
)

// local runs the scripts with this machine's sh: the shared logic and
// the scripts themselves, without a container.
type local struct{ dir string }

func (l local) Command(ctx context.Context, _ bool, script string, args ...string) (*exec.Cmd, error) {
	cmd := exec.CommandContext(ctx, "sh", append([]string{"-c", script, "sh"}, args...)...)
	cmd.Dir = l.dir
	return cmd, nil
}

func (local) Failure(context.Context, int, string, error) error { return nil }

func newLocal(t *testing.T) (*Remote, string) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	return &Remote{Runner: local{dir}, Name: "local", Program: "sh", Where: "here", Reading: "reading here"}, dir
}

// TestFileIOContract: the scripts and FileIO pass the contract suite on
// this machine's sh.
func TestFileIOContract(t *testing.T) {
	capabilitytest.FileIO(t, func(t *testing.T) (capabilities.FileIO, string) {
		m, dir := newLocal(t)
		return NewFileIO(m), dir
	})
}

// TestProbe: the cwd resolved, a missing one ErrNotExist.
func TestProbe(t *testing.T) {
	m, dir := newLocal(t)
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	p, err := m.Probe(context.Background(), filepath.Join(dir, "sub", "..", "sub"))
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "sub"), p.Cwd)
	assert.Equal(t, os.Getenv("HOME"), p.Home)
	p, err = m.Probe(context.Background(), "")
	require.NoError(t, err)
	assert.Equal(t, dir, p.Cwd)
	_, err = m.Probe(context.Background(), filepath.Join(dir, "missing"))
	require.ErrorIs(t, err, capabilities.ErrNotExist)
	assert.Contains(t, err.Error(), "local: cwd "+filepath.Join(dir, "missing"))
}

// TestRealPath: links resolved, a missing tail appended, relative paths
// from the runner's directory.
func TestRealPath(t *testing.T) {
	m, dir := newLocal(t)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "real", "sub"), 0o755))
	require.NoError(t, os.Symlink("real", filepath.Join(dir, "link")))
	for in, want := range map[string]string{
		dir + "/link/sub":        dir + "/real/sub",
		dir + "/link/new/../x/y": dir + "/real/x/y",
		dir + "//link//a/":       dir + "/real/a",
		"link/b":                 dir + "/real/b",
		"missing":                dir + "/missing",
		"/":                      "/",
	} {
		got, err := m.RealPath(context.Background(), in)
		require.NoError(t, err, "%q", in)
		assert.Equal(t, want, got, "%q", in)
	}
}

// TestMissingTail: the components the script takes off, taken off the
// same way.
func TestMissingTail(t *testing.T) {
	assert.Equal(t, []string{"b", "c"}, missingTail("/a/b/c", 2))
	assert.Equal(t, []string{"a", ""}, missingTail("/a/", 2))
	assert.Equal(t, []string{"x"}, missingTail("x", 1))
	assert.Equal(t, []string{"a"}, missingTail("/a", 1))
	assert.Empty(t, missingTail("/a", 0))
}
