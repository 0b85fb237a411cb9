//go:build unix

package localfs

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

func TestCheckedReadOpensTheJudgedPathOnly(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	file := filepath.Join(dir, "a.txt")
	require.NoError(t, os.WriteFile(file, []byte("a"), 0o644))
	require.NoError(t, os.Symlink(file, filepath.Join(dir, "link")))
	fs := New()
	checked := func(p string) context.Context {
		return capabilities.WithChecked(context.Background(), capabilities.Checked{Path: p})
	}

	data, err := fs.ReadFile(checked(file), file)
	require.NoError(t, err)
	assert.Equal(t, "a", string(data))

	_, err = fs.ReadFile(checked(filepath.Join(dir, "link")), filepath.Join(dir, "link"))
	assert.ErrorIs(t, err, capabilities.ErrChangedWhileChecked, "a final link is not followed")

	_, err = fs.ReadFile(checked(filepath.Join(dir, "missing")), filepath.Join(dir, "missing"))
	assert.ErrorIs(t, err, capabilities.ErrNotExist)
	_, err = fs.ReadFile(checked(filepath.Join(file, "below")), filepath.Join(file, "below"))
	assert.ErrorIs(t, err, capabilities.ErrNotExist, "under a regular file")
	_, err = fs.ReadFile(checked(dir), dir)
	assert.ErrorIs(t, err, capabilities.ErrIsDirectory)

	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	require.NoError(t, os.Symlink(filepath.Join(dir, "sub"), filepath.Join(dir, "sublink")))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sub", "b"), []byte("b"), 0o644))
	_, err = fs.Open(checked(filepath.Join(dir, "sublink", "b")), filepath.Join(dir, "sublink", "b"))
	assert.ErrorIs(t, err, capabilities.ErrChangedWhileChecked, "a directory link is not followed")
}
