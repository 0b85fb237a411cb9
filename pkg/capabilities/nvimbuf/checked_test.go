package nvimbuf_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/nvimtest"
)

// A read the permission check judged (capabilities.WithChecked) never
// lets Neovim reload a buffer from a file swapped for a link to a secret:
// the unmodified buffer is read from the judged file on disk, which the
// swap makes fail, and the buffer keeps its text. A modified buffer is
// the user's text and is read as before.
func TestCheckedReadDoesNotReloadASwappedBuffer(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fs := start(t, bin)
		secret := filepath.Join(t.TempDir(), "id_rsa")
		require.NoError(t, os.WriteFile(secret, []byte("PRIVATE\n"), 0o600))
		path := filepath.Join(n.Dir, "notes.txt")
		require.NoError(t, os.WriteFile(path, []byte("notes\n"), 0o644))
		n.Command("edit " + path)
		ctx := capabilities.WithChecked(context.Background(), capabilities.Checked{Path: path})

		got, err := fs.ReadFile(ctx, path)
		require.NoError(t, err)
		assert.Equal(t, "notes\n", string(got))

		require.NoError(t, os.Remove(path))
		require.NoError(t, os.Symlink(secret, path))
		got, err = fs.ReadFile(ctx, path)
		assert.ErrorIs(t, err, capabilities.ErrChangedWhileChecked)
		assert.Empty(t, got)
		r, err := fs.Open(ctx, path)
		assert.ErrorIs(t, err, capabilities.ErrChangedWhileChecked)
		assert.Nil(t, r)
		assert.Equal(t, []string{"notes"}, bufferLines(n, path), "the buffer was not reloaded from the link")

		n.Lua(`vim.api.nvim_buf_set_lines(vim.fn.bufnr(...), 0, -1, false, {"typed"})`, path)
		got, err = fs.ReadFile(ctx, path)
		require.NoError(t, err)
		assert.Equal(t, "typed\n", string(got), "unsaved text is the user's")
	})
}
