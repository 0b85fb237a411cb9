package toolfiles

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPathStaysUnderRoot(t *testing.T) {
	root := t.TempDir()
	for _, id := range []string{"../../etc", "", "..", "-rf", "a\x00b", "/abs", strings.Repeat("x", 500)} {
		p, err := Path(root, id, id, "out.md")
		require.NoError(t, err)
		rel, err := filepath.Rel(root, p)
		require.NoError(t, err)
		assert.False(t, strings.HasPrefix(rel, ".."), "%q -> %s", id, p)
	}
}

func TestStoreSave(t *testing.T) {
	root := t.TempDir()
	p, err := Store{Root: root}.Save("t1", "tu_1", "page.md", []byte("hello"))
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(root, "threads", "t1", "tools", "tu_1", "page.md"), p)
	st, err := os.Stat(p)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	dir, err := os.Stat(filepath.Dir(p))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), dir.Mode().Perm())
}
