package nvimbuf_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/nvimtest"
)

// changeOnDisk rewrites path behind the editor's back, as a formatter or
// `git checkout` does, with a modification time clearly after the one
// Neovim read (file systems with whole-second times would hide a rewrite
// within the same second from any editor).
func changeOnDisk(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	later := time.Now().Add(5 * time.Second)
	require.NoError(t, os.Chtimes(path, later, later))
}

func bufferLines(n *nvimtest.Nvim, path string) []string {
	var lines []string
	n.LuaResult(&lines, `return vim.api.nvim_buf_get_lines(vim.fn.bufnr(...), 0, -1, false)`, path)
	return lines
}

// An unmodified buffer whose file changed on disk is reloaded before it is
// read or edited: the model never sees the stale text, and an edit keeps
// the disk's change instead of writing the old buffer over it.
func TestStaleUnmodifiedBufferIsReloaded(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fs := start(t, bin)
		ctx := context.Background()
		path := filepath.Join(n.Dir, "fmt.go")
		require.NoError(t, os.WriteFile(path, []byte("alpha\nbeta\n"), 0o644))
		n.Command("edit " + path)
		changeOnDisk(t, path, "alpha\nbeta\nadded by the formatter\n")

		got, err := fs.ReadFile(ctx, path)
		require.NoError(t, err)
		assert.Equal(t, "alpha\nbeta\nadded by the formatter\n", string(got), "read the disk's change")

		changeOnDisk(t, path, "alpha\nbeta\nchanged by git checkout\n")
		require.NoError(t, fs.Update(ctx, path, 1<<20, func(old []byte) ([]byte, error) {
			return []byte(strings.Replace(string(old), "alpha", "ALPHA", 1)), nil
		}))
		disk, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, "ALPHA\nbeta\nchanged by git checkout\n", string(disk), "the disk's change survived the edit")
		assert.Equal(t, []string{"ALPHA", "beta", "changed by git checkout"}, bufferLines(n, path))

		changeOnDisk(t, path, "rewritten\n")
		require.NoError(t, fs.WriteFile(ctx, path, []byte("whole new\n")))
		disk, err = os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, "whole new\n", string(disk))
	})
}

// A buffer with unsaved changes whose file also changed on disk: writes
// and edits are refused with ErrDiskChanged, and neither side is lost,
// however often the model tries; once the user reloads, edits work again.
func TestModifiedBufferAndChangedDiskAreBothKept(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fs := start(t, bin)
		ctx := context.Background()
		path := filepath.Join(n.Dir, "both.txt")
		require.NoError(t, os.WriteFile(path, []byte("alpha\nbeta\n"), 0o644))
		n.Command("edit " + path)
		n.Lua(`vim.api.nvim_buf_set_lines(0, 1, 2, false, {"the user's unsaved line"})`)
		changeOnDisk(t, path, "alpha\nthe disk's new line\n")

		upper := func(old []byte) ([]byte, error) { return []byte(strings.ToUpper(string(old))), nil }
		for range 2 {
			err := fs.Update(ctx, path, 1<<20, upper)
			assert.ErrorIs(t, err, capabilities.ErrDiskChanged)
			assert.ErrorIs(t, fs.WriteFile(ctx, path, []byte("model\n")), capabilities.ErrDiskChanged)
		}
		disk, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, "alpha\nthe disk's new line\n", string(disk), "the disk's side")
		assert.Equal(t, []string{"alpha", "the user's unsaved line"}, bufferLines(n, path), "the user's side")
		var modified bool
		n.LuaResult(&modified, `return vim.bo.modified`)
		assert.True(t, modified)

		n.Command("edit!")
		require.NoError(t, fs.Update(ctx, path, 1<<20, upper), "the user reloaded: no conflict left")
		disk, err = os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, "ALPHA\nTHE DISK'S NEW LINE\n", string(disk))
	})
}

// Updates of a file loaded in a buffer, running at once, all land: each
// reads the buffer the one before left.
func TestConcurrentUpdatesOfALoadedBuffer(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fs := start(t, bin)
		path := filepath.Join(n.Dir, "shared.txt")
		require.NoError(t, os.WriteFile(path, []byte("start\n"), 0o644))
		n.Command("edit " + path)
		const workers, rounds = 4, 10
		var wg sync.WaitGroup
		var want []string
		for w := range workers {
			for r := range rounds {
				want = append(want, fmt.Sprintf("w%d r%d", w, r))
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				for r := range rounds {
					line := fmt.Sprintf("w%d r%d\n", w, r)
					assert.NoError(t, fs.Update(context.Background(), path, 1<<20, func(old []byte) ([]byte, error) {
						return append(old, line...), nil
					}))
				}
			}()
		}
		wg.Wait()
		disk, err := os.ReadFile(path)
		require.NoError(t, err)
		lines := strings.Split(strings.TrimSuffix(string(disk), "\n"), "\n")
		require.Equal(t, "start", lines[0])
		got := append([]string(nil), lines[1:]...)
		sort.Strings(got)
		sort.Strings(want)
		assert.Equal(t, want, got, "every line, once")
		assert.Equal(t, lines, bufferLines(n, path), "the buffer holds what was saved")
	})
}

// A buffer larger than the cap is refused without its text being sent.
func TestUpdateOfALargeBufferIsRefused(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fs := start(t, bin)
		path := filepath.Join(n.Dir, "big.txt")
		require.NoError(t, os.WriteFile(path, []byte(strings.Repeat("0123456789\n", 100)), 0o644))
		n.Command("edit " + path)
		err := fs.Update(context.Background(), path, 1000, func(old []byte) ([]byte, error) { return old, nil })
		var tooLarge *capabilities.TooLargeError
		require.ErrorAs(t, err, &tooLarge)
		assert.Equal(t, capabilities.TooLargeError{Size: 1100, Max: 1000}, *tooLarge)
	})
}

// A FIFO is refused at once, not read forever.
func TestFIFOIsRefused(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fs := start(t, bin)
		fifo := filepath.Join(n.Dir, "pipe")
		if err := syscall.Mkfifo(fifo, 0o644); err != nil {
			t.Skip("no FIFOs here:", err)
		}
		_, err := fs.Open(context.Background(), fifo)
		assert.ErrorIs(t, err, capabilities.ErrNotRegular)
		_, err = fs.ReadFile(context.Background(), fifo)
		assert.ErrorIs(t, err, capabilities.ErrNotRegular)
	})
}
