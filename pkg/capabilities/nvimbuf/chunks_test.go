package nvimbuf_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities/localfs"
	"github.com/magenta-nvim/magenta/pkg/capabilities/nvimbuf"
	"github.com/magenta-nvim/magenta/pkg/nvimtest"
)

// bigFile writes a file of n numbered lines (~30 bytes each).
func bigFile(t testing.TB, dir string, n int, sep string) string {
	var sb strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&sb, "line %07d of the big log%s", i, sep)
	}
	path := filepath.Join(dir, "big.log")
	require.NoError(t, os.WriteFile(path, []byte(sb.String()), 0o644))
	return path
}

// countPieces makes Neovim count the calls of read_lines.
const countPieces = `local f = require('magenta.files'); local orig = f.read_lines
_G.pieces = 0
f.read_lines = function(...) _G.pieces = _G.pieces + 1; return orig(...) end`

// A buffer over OpenWholeMax is streamed: reading its first lines fetches
// one piece, reading it all gives exactly what ReadFile gives (unsaved
// text, dos line ends, no final newline included).
func TestOpenStreamsALargeBufferInPieces(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fs := start(t, bin)
		ctx := context.Background()
		n.Lua(countPieces)
		for _, c := range []struct{ name, sep, setup string }{
			{"unix", "\n", ""},
			{"dos", "\r\n", ""},
			{"noeol", "\n", "setlocal nofixeol noeol"},
		} {
			path := bigFile(t, t.TempDir(), 60000, c.sep) // ~1.8 MB
			n.Command("edit " + path)
			if c.setup != "" {
				n.Command(c.setup)
			}
			n.Lua(`vim.api.nvim_buf_set_lines(0, 30000, 30001, false, {"an unsaved line"})`)
			n.Lua(`_G.pieces = 0`)

			r, err := fs.Open(ctx, path)
			require.NoError(t, err)
			br := bufio.NewReader(r)
			first, err := br.ReadString('\n')
			require.NoError(t, err)
			assert.Equal(t, "line 0000001 of the big log"+c.sep, first, c.name)
			var pieces int
			n.LuaResult(&pieces, `return _G.pieces`)
			assert.Equal(t, 1, pieces, "%s: the first line costs one piece", c.name)

			rest, err := io.ReadAll(br)
			require.NoError(t, err)
			whole, err := fs.ReadFile(ctx, path)
			require.NoError(t, err)
			assert.Equal(t, string(whole), first+string(rest), c.name)
			assert.Contains(t, string(whole), c.sep+"an unsaved line"+c.sep)
			n.LuaResult(&pieces, `return _G.pieces`)
			assert.Equal(t, (60000+nvimbuf.OpenChunkLines-1)/nvimbuf.OpenChunkLines, pieces, c.name)
			n.Command("bwipeout!")
		}
	})
}

// A buffer that changes while it is streamed is not read as a mix of two
// versions: the reader fails with ErrBufferChanged.
func TestOpenOfAChangingBufferFails(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fs := start(t, bin)
		path := bigFile(t, n.Dir, 60000, "\n")
		n.Command("edit " + path)
		r, err := fs.Open(context.Background(), path)
		require.NoError(t, err)
		buf := make([]byte, 100)
		_, err = io.ReadFull(r, buf)
		require.NoError(t, err)
		n.Lua(`vim.api.nvim_buf_set_lines(0, 0, 1, false, {"typed meanwhile"})`)
		_, err = io.ReadAll(r)
		assert.ErrorIs(t, err, nvimbuf.ErrBufferChanged)
	})
}

// BenchmarkOpenFirstLinesOfHugeBuffer reads the first 1 000 lines (what
// get_file shows at most) of a 60 MB log open in a buffer: "whole" copies
// the buffer over RPC first (what Open did before), "streamed" is Open.
func BenchmarkOpenFirstLinesOfHugeBuffer(b *testing.B) {
	bins := nvimtest.Binaries()
	if len(bins) == 0 {
		b.Skip("no Neovim")
	}
	n := nvimtest.Start(b, bins[0])
	n.Serve()
	fs := nvimbuf.New(n.V, localfs.New())
	path := bigFile(b, n.Dir, 2_000_000, "\n")
	n.Command("edit " + path)
	ctx := context.Background()
	firstLines := func(r io.Reader) {
		br := bufio.NewReader(r)
		for i := 0; i < 1000; i++ {
			if _, err := br.ReadString('\n'); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("whole", func(b *testing.B) {
		for b.Loop() {
			data, err := fs.ReadFile(ctx, path)
			if err != nil {
				b.Fatal(err)
			}
			firstLines(strings.NewReader(string(data)))
		}
	})
	b.Run("streamed", func(b *testing.B) {
		for b.Loop() {
			r, err := fs.Open(ctx, path)
			if err != nil {
				b.Fatal(err)
			}
			firstLines(r)
			_ = r.Close()
		}
	})
}
