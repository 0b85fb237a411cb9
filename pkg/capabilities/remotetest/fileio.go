package remotetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/capabilitytest"
)

// FileIO runs capabilitytest's FileIO contract suite on tg's Files, each
// subtest in a fresh directory of the machine, then the checks of a
// FileIO made of package posixremote's scripts, in parallel (each in a
// directory of its own, so they may share a machine with other tests):
//
//   - a FIFO or a device is refused without blocking, for reads, writes
//     and Update alike;
//   - a rewrite keeps the file's mode (a new file is 0644), binary
//     content comes back byte for byte, no temporary file is left;
//   - writing a symlink replaces its target's content, the link stays;
//   - paths a shell would split, expand or unquote reach the scripts as
//     they are, and nothing is made elsewhere.
func FileIO(t *testing.T, tg Target) {
	base := privateDir(t, tg)
	t.Run("Contract", func(t *testing.T) {
		t.Parallel()
		var n atomic.Int64
		capabilitytest.FileIO(t, func(t *testing.T) (capabilities.FileIO, string) {
			root := fmt.Sprintf("%s/contract-%d", base, n.Add(1))
			require.NoError(t, tg.Env.Files.MkdirAll(context.Background(), root))
			return tg.Env.Files, root
		})
	})
	t.Run("FIFO", func(t *testing.T) { t.Parallel(); fileFIFO(t, tg, base+"/fifo") })
	t.Run("KeepsModeAndBinary", func(t *testing.T) { t.Parallel(); fileKeepsMode(t, tg, base+"/mode") })
	t.Run("WriteThroughSymlink", func(t *testing.T) { t.Parallel(); fileSymlink(t, tg, base+"/link") })
	t.Run("AwkwardPaths", func(t *testing.T) { t.Parallel(); fileAwkward(t, tg, base+"/awk") })
}

// privateDir is a new directory of the machine's /tmp for one test.
func privateDir(t *testing.T, tg Target) string {
	var id [4]byte
	_, _ = rand.Read(id[:])
	dir := "/tmp/fileio-" + hex.EncodeToString(id[:])
	require.NoError(t, tg.Env.Files.MkdirAll(context.Background(), dir))
	return dir
}

func fileFIFO(t *testing.T, tg Target, dir string) {
	ctx := context.Background()
	require.NoError(t, tg.Env.Files.MkdirAll(ctx, dir))
	fifo := dir + "/fifo"
	Docker(t, "exec", tg.Container, "mkfifo", fifo)
	_, err := tg.Env.Files.ReadFile(ctx, fifo)
	assert.ErrorIs(t, err, capabilities.ErrNotRegular)
	assert.ErrorIs(t, tg.Env.Files.WriteFile(ctx, fifo, []byte("x")), capabilities.ErrNotRegular)
	err = tg.Env.Files.Update(ctx, fifo, 100, func(b []byte) ([]byte, error) { return b, nil })
	assert.ErrorIs(t, err, capabilities.ErrNotRegular)
	_, err = tg.Env.Files.ReadFile(ctx, "/dev/zero")
	assert.ErrorIs(t, err, capabilities.ErrNotRegular)
}

func fileKeepsMode(t *testing.T, tg Target, dir string) {
	ctx := context.Background()
	require.NoError(t, tg.Env.Files.MkdirAll(ctx, dir))
	p := dir + "/run.sh"
	require.NoError(t, tg.Env.Files.WriteFile(ctx, p, []byte("#!/bin/sh\n")))
	assert.Equal(t, "644", Docker(t, "exec", tg.Container, "stat", "-c", "%a", p))
	Docker(t, "exec", tg.Container, "chmod", "750", p)
	bin := make([]byte, 256*3)
	for i := range bin {
		bin[i] = byte(i)
	}
	require.NoError(t, tg.Env.Files.WriteFile(ctx, p, bin))
	assert.Equal(t, "750", Docker(t, "exec", tg.Container, "stat", "-c", "%a", p))
	got, err := tg.Env.Files.ReadFile(ctx, p)
	require.NoError(t, err)
	assert.Equal(t, bin, got)
	assert.Equal(t, []string{"run.sh"}, entries(t, tg, dir))
}

func fileSymlink(t *testing.T, tg Target, dir string) {
	ctx := context.Background()
	require.NoError(t, tg.Env.Files.MkdirAll(ctx, dir))
	require.NoError(t, tg.Env.Files.WriteFile(ctx, dir+"/target", []byte("old")))
	Docker(t, "exec", tg.Container, "ln", "-s", dir+"/target", dir+"/link")
	require.NoError(t, tg.Env.Files.WriteFile(ctx, dir+"/link", []byte("new")))
	got, err := tg.Env.Files.ReadFile(ctx, dir+"/target")
	require.NoError(t, err)
	assert.Equal(t, "new", string(got))
	assert.Equal(t, dir+"/target", Docker(t, "exec", tg.Container, "readlink", dir+"/link"))
}

func fileAwkward(t *testing.T, tg Target, dir string) {
	ctx := context.Background()
	require.NoError(t, tg.Env.Files.MkdirAll(ctx, dir))
	names := []string{"a b", "it's", `back\slash`, "$HOME", "`id`", "-n", "semi;colon", "new\nline"}
	for _, name := range names {
		p := dir + "/" + name
		require.NoError(t, tg.Env.Files.WriteFile(ctx, p, []byte(name)), "%q", name)
		got, err := tg.Env.Files.ReadFile(ctx, p)
		require.NoError(t, err, "%q", name)
		assert.Equal(t, name, string(got))
	}
	// Nothing was made under another name (an expanded $HOME, a split
	// name).
	sort.Strings(names)
	assert.Equal(t, names, entries(t, tg, dir))
}

// entries are the names in dir on the machine, sorted.
func entries(t *testing.T, tg Target, dir string) []string {
	out := Docker(t, "exec", tg.Container, "find", dir, "-mindepth", "1", "-maxdepth", "1", "-print0")
	var names []string
	for _, p := range strings.Split(strings.TrimSuffix(out, "\x00"), "\x00") {
		if p != "" {
			names = append(names, strings.TrimPrefix(p, dir+"/"))
		}
	}
	sort.Strings(names)
	return names
}
