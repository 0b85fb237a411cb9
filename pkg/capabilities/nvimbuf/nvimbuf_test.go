package nvimbuf_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/capabilitytest"
	"github.com/magenta-nvim/magenta/pkg/capabilities/localfs"
	"github.com/magenta-nvim/magenta/pkg/capabilities/nvimbuf"
	"github.com/magenta-nvim/magenta/pkg/nvimtest"
)

func start(t *testing.T, bin string) (*nvimtest.Nvim, *nvimbuf.FS) {
	n := nvimtest.Start(t, bin)
	n.Serve()
	return n, nvimbuf.New(n.V, localfs.New())
}

// The buffer-aware FileIO keeps the FileIO contract (no buffer loaded:
// everything reaches the disk through it).
func TestContract(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		_, fs := start(t, bin)
		capabilitytest.FileIO(t, func(t *testing.T) (capabilities.FileIO, string) { return fs, t.TempDir() })
	})
}

func TestUnsavedBufferIsTheTruthAndWritesGoThroughIt(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fs := start(t, bin)
		ctx := context.Background()
		path := filepath.Join(n.Dir, "notes.txt")
		require.NoError(t, os.WriteFile(path, []byte("one\ntwo\nthree\n"), 0o644))
		n.Command("edit " + path)
		n.Lua(`vim.api.nvim_buf_set_lines(0, 0, 1, false, {"ONE (unsaved)"})`)
		n.Lua(`vim.api.nvim_win_set_cursor(0, {3, 2})`)

		got, err := fs.ReadFile(ctx, path)
		require.NoError(t, err)
		assert.Equal(t, "ONE (unsaved)\ntwo\nthree\n", string(got), "the model sees the unsaved buffer")
		st, err := fs.Stat(ctx, path)
		require.NoError(t, err)
		assert.Equal(t, int64(len(got)), st.Size)

		require.NoError(t, fs.WriteFile(ctx, path, []byte("ONE (unsaved)\nTWO\nthree\n")))
		disk, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, "ONE (unsaved)\nTWO\nthree\n", string(disk), "written through the buffer and saved")
		var modified bool
		n.LuaResult(&modified, `return vim.bo.modified`)
		assert.False(t, modified)
		var cursor [2]int
		n.LuaResult(&cursor, `return vim.api.nvim_win_get_cursor(0)`)
		assert.Equal(t, [2]int{3, 2}, cursor, "the cursor stays where it was")

		n.Keys("u")
		var lines []string
		n.LuaResult(&lines, `return vim.api.nvim_buf_get_lines(0, 0, -1, false)`)
		assert.Equal(t, []string{"ONE (unsaved)", "two", "three"}, lines, "undo gives the user's text back")
	})
}

func TestLineEndingsRoundTrip(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fs := start(t, bin)
		ctx := context.Background()
		// A file without a final newline reads with one when 'fixeol' is
		// set (the default): that is what Neovim writes.
		for name, c := range map[string][2]string{"dos.txt": {"a\r\nb\r\n", "a\r\nb\r\n"}, "noeol.txt": {"a\nb", "a\nb\n"}} {
			path := filepath.Join(n.Dir, name)
			require.NoError(t, os.WriteFile(path, []byte(c[0]), 0o644))
			n.Command("edit " + path)
			got, err := fs.ReadFile(ctx, path)
			require.NoError(t, err)
			content := c[1]
			assert.Equal(t, content, string(got), name)
			require.NoError(t, fs.WriteFile(ctx, path, got))
			disk, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, content, string(disk), name)
		}
	})
}
