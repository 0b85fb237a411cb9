//go:build unix

package localfs

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

var bg = context.Background()

func mode(t *testing.T, p string) fs.FileMode {
	t.Helper()
	info, err := os.Stat(p)
	require.NoError(t, err)
	return info.Mode().Perm()
}

func TestErrorMessagesNamePath(t *testing.T) {
	dir := t.TempDir()
	l := New()
	p := filepath.Join(dir, "x", "y")
	_, err := l.ReadFile(bg, p)
	assert.EqualError(t, err, "read "+p+": does not exist")
	_, err = l.ReadFile(bg, dir)
	assert.EqualError(t, err, "read "+dir+": is a directory")
	assert.EqualError(t, l.WriteFile(bg, p, nil), "write "+p+": does not exist")
	assert.EqualError(t, l.WriteFile(bg, dir, nil), "write "+dir+": is a directory")
	_, err = l.Stat(bg, p)
	assert.EqualError(t, err, "stat "+p+": does not exist")
	_, err = l.Open(bg, dir)
	assert.EqualError(t, err, "open "+dir+": is a directory")

	f := filepath.Join(dir, "f")
	require.NoError(t, l.WriteFile(bg, f, nil))
	err = l.MkdirAll(bg, filepath.Join(f, "sub"))
	assert.EqualError(t, err, "mkdir "+filepath.Join(f, "sub")+": "+f+": not a directory")
	assert.False(t, errors.Is(err, capabilities.ErrNotExist))
	assert.ErrorIs(t, err, syscall.ENOTDIR)
	assert.EqualError(t, l.MkdirAll(bg, f), "mkdir "+f+": not a directory")
}

func TestWriteModes(t *testing.T) {
	dir := t.TempDir()
	l := New()
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)

	fresh := filepath.Join(dir, "new.txt")
	require.NoError(t, l.WriteFile(bg, fresh, []byte("a")))
	assert.Equal(t, fs.FileMode(0o644), mode(t, fresh), "new files are 0644 whatever the umask")

	script := filepath.Join(dir, "run.sh")
	require.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\n"), 0o700))
	require.NoError(t, os.Chmod(script, 0o751))
	require.NoError(t, l.WriteFile(bg, script, []byte("#!/bin/sh\necho hi\n")))
	assert.Equal(t, fs.FileMode(0o751), mode(t, script), "existing permission bits are kept")
	got, err := os.ReadFile(script)
	require.NoError(t, err)
	assert.Equal(t, "#!/bin/sh\necho hi\n", string(got))
}

func TestWriteLeavesNoTemporaryFiles(t *testing.T) {
	dir := t.TempDir()
	l := New()
	for i := range 3 {
		require.NoError(t, l.WriteFile(bg, filepath.Join(dir, "f.txt"), []byte{byte(i)}))
	}
	require.Error(t, l.WriteFile(bg, dir, []byte("x")))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1)
	assert.Equal(t, "f.txt", entries[0].Name())
}

func TestWriteReadOnlyFileFails(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root may write any file")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "ro.txt")
	require.NoError(t, os.WriteFile(p, []byte("keep"), 0o444))
	err := New().WriteFile(bg, p, []byte("changed"))
	require.Error(t, err)
	assert.ErrorIs(t, err, fs.ErrPermission)
	assert.NotErrorIs(t, err, capabilities.ErrPermissionDenied, "reserved for decorators")
	assert.Contains(t, err.Error(), p)
	got, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, "keep", string(got))
}

func TestSymlinksAreFollowed(t *testing.T) {
	dir := t.TempDir()
	l := New()
	real := filepath.Join(dir, "real.txt")
	require.NoError(t, os.WriteFile(real, []byte("old"), 0o600))
	link := filepath.Join(dir, "link.txt")
	require.NoError(t, os.Symlink("real.txt", link))
	chain := filepath.Join(dir, "chain.txt")
	require.NoError(t, os.Symlink(link, chain))

	require.NoError(t, l.WriteFile(bg, chain, []byte("new")))
	got, err := l.ReadFile(bg, link)
	require.NoError(t, err)
	assert.Equal(t, "new", string(got))
	info, err := os.Lstat(link)
	require.NoError(t, err)
	assert.NotZero(t, info.Mode()&fs.ModeSymlink, "the link must stay a link")
	assert.Equal(t, fs.FileMode(0o600), mode(t, real))

	// A relative ".." resolves through a symlinked directory as the OS does.
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "deep", "inner"), 0o755))
	require.NoError(t, os.Symlink(filepath.Join(dir, "deep", "inner"), filepath.Join(dir, "alias")))
	require.NoError(t, os.Symlink("../target.txt", filepath.Join(dir, "deep", "inner", "up")))
	require.NoError(t, l.WriteFile(bg, filepath.Join(dir, "alias", "up"), []byte("via alias")))
	got, err = os.ReadFile(filepath.Join(dir, "deep", "target.txt"))
	require.NoError(t, err)
	assert.Equal(t, "via alias", string(got))

	dangling := filepath.Join(dir, "dangling")
	require.NoError(t, os.Symlink("created.txt", dangling))
	ok, err := l.Exists(bg, dangling)
	require.NoError(t, err)
	assert.False(t, ok, "a dangling link does not exist")
	require.NoError(t, l.WriteFile(bg, dangling, []byte("made")))
	got, err = os.ReadFile(filepath.Join(dir, "created.txt"))
	require.NoError(t, err)
	assert.Equal(t, "made", string(got))

	loop := filepath.Join(dir, "loop")
	require.NoError(t, os.Symlink("loop", loop))
	assert.Error(t, l.WriteFile(bg, loop, []byte("x")))
}

func TestOpenReaderHonoursContext(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	require.NoError(t, os.WriteFile(p, make([]byte, 1000), 0o644))
	ctx, cancel := context.WithCancel(bg)
	rc, err := New().Open(ctx, p)
	require.NoError(t, err)
	defer rc.Close()
	buf := make([]byte, 10)
	_, err = rc.Read(buf)
	require.NoError(t, err)
	cancel()
	_, err = rc.Read(buf)
	assert.ErrorIs(t, err, context.Canceled)
}

// A FIFO is refused for reading and writing, at once: opening one
// without a writer (or a reader) would block forever.
func TestFIFOIsRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	l := New()
	_, err := l.Open(bg, fifo)
	assert.ErrorIs(t, err, capabilities.ErrNotRegular, "Open")
	_, err = l.ReadFile(bg, fifo)
	assert.ErrorIs(t, err, capabilities.ErrNotRegular, "ReadFile")
	assert.ErrorIs(t, l.WriteFile(bg, fifo, []byte("x")), capabilities.ErrNotRegular, "WriteFile")
	assert.ErrorIs(t, l.Update(bg, fifo, 1<<20, func(b []byte) ([]byte, error) { return b, nil }), capabilities.ErrNotRegular, "Update")
	info, err := os.Lstat(fifo)
	require.NoError(t, err)
	assert.NotZero(t, info.Mode()&fs.ModeNamedPipe, "the FIFO must not be replaced")
}

// Update reads no more than the cap allows, even when a stat said the
// file was smaller (it grew in between): a file growing without end
// cannot make it read without end.
func TestUpdateOfAGrowingFileStopsAtTheCap(t *testing.T) {
	path := filepath.Join(t.TempDir(), "grow.txt")
	require.NoError(t, os.WriteFile(path, []byte("small"), 0o644))
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	require.NoError(t, os.WriteFile(path, []byte("now much larger than the cap"), 0o644))
	_, err = readCapped(bg, f, path, 5, 10)
	var tooLarge *capabilities.TooLargeError
	require.ErrorAs(t, err, &tooLarge)
	assert.Equal(t, int64(11), tooLarge.Size, "read cap+1 bytes, not the whole file")
}

// Confined beneath a root, a write never follows a symlink out of it: not
// through a directory, not as the file itself. In-root directories still
// work, and nothing is created outside.
func TestConfinedWritesStayBeneathTheRoot(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	l := New()
	require.NoError(t, os.Mkdir(filepath.Join(root, "in"), 0o755))
	require.NoError(t, os.Symlink(outside, filepath.Join(root, "out")))
	require.NoError(t, os.Symlink(filepath.Join(outside, "f.txt"), filepath.Join(root, "in", "link.txt")))
	beneath := func(rel string) context.Context {
		return capabilities.WithBeneath(bg, capabilities.Beneath{Root: root, Rel: rel})
	}

	require.NoError(t, l.WriteFile(beneath("in/ok.txt"), filepath.Join(root, "in", "ok.txt"), []byte("ok")))
	got, err := os.ReadFile(filepath.Join(root, "in", "ok.txt"))
	require.NoError(t, err)
	assert.Equal(t, "ok", string(got))
	require.NoError(t, l.Update(beneath("in/ok.txt"), filepath.Join(root, "in", "ok.txt"), 10, func(b []byte) ([]byte, error) {
		return append(b, '!'), nil
	}))
	require.NoError(t, l.MkdirAll(beneath("in/new/dir"), filepath.Join(root, "in", "new", "dir")))

	assert.Error(t, l.WriteFile(beneath("out/x.txt"), filepath.Join(root, "out", "x.txt"), []byte("x")), "through a directory link")
	assert.Error(t, l.WriteFile(beneath("in/link.txt"), filepath.Join(root, "in", "link.txt"), []byte("x")), "through a file link")
	assert.Error(t, l.MkdirAll(beneath("out/d"), filepath.Join(root, "out", "d")), "mkdir through a link")
	assert.Error(t, l.WriteFile(beneath("../x.txt"), filepath.Join(root, "..", "x.txt"), []byte("x")), "a relative path leaving the root")
	entries, err := os.ReadDir(outside)
	require.NoError(t, err)
	assert.Empty(t, entries, "nothing written outside")
}
