package capabilitytest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// ModTimeSlack is how far before the start of a write the written file's
// ModTime may lie. File systems store times at a resolution (up to 2 s on
// some) and kernels stamp them from a coarse clock that can lag the
// wall-clock time a test reads; within this slack both are tolerated.
const ModTimeSlack = 2 * time.Second

// FileIO runs the capabilities.FileIO contract against the implementation
// that newFS returns. newFS is called once per subtest; root must be an
// existing, empty, absolute, clean directory in that fs, which the
// subtest may fill (paths below are relative to root). The suite never
// touches anything outside root. What it asserts:
//
// Context. Every method called with an already cancelled context returns
// an error matching context.Canceled (errors.Is) and does no work:
// implementations check ctx before touching anything, so a cancelled
// WriteFile creates no file and a cancelled MkdirAll no directory.
//
// ReadFile and Open. A missing file, or a path under a missing directory
// or under a regular file, fails with ErrNotExist; a directory fails with
// ErrIsDirectory; both errors' messages contain the path. Open streams
// the exact content, and a reader of a large file (4 MiB) can be closed
// after reading 10 bytes, with a nil error from Close. A reader read to
// the end in small chunks returns (0, io.EOF) on every Read after that,
// and closes cleanly.
//
// WriteFile. It creates a missing file (Exists is then true, Stat reports
// the length and IsDir false), replaces an existing one entirely (a
// shorter content leaves no tail of the longer one) and stores the bytes
// exactly: empty, binary with NUL and 0xFF, CRLF line endings, no
// trailing newline, UTF-8 and invalid UTF-8. When the parent directory is
// missing, or is a regular file, it fails with ErrNotExist and creates
// nothing; onto a directory it fails with ErrIsDirectory and leaves the
// directory in place. Messages contain the path. WriteFile does not keep
// the caller's slice, and ReadFile returns a slice the caller owns.
//
// Stat. It reports Size and IsDir of files and directories (root
// included); a missing path fails with ErrNotExist. ModTime is never zero;
// after a write it is not earlier than the write's start minus
// ModTimeSlack, and successive writes of one file never move it
// backwards. Nothing relies on sleeping.
//
// Exists. True for files and directories; false with a nil error for a
// missing path, one under a missing directory and one under a regular
// file.
//
// MkdirAll. It creates nested directories (Stat: IsDir), succeeds again on
// existing ones and on root, and a file written into the new directory
// reads back. A regular file at the path or at one of its parents is an
// error (any error) and the file is left unchanged.
//
// Update. It hands change the exact content and stores what change
// returns; a missing path (or one under a missing directory) fails with
// ErrNotExist, a directory with ErrIsDirectory, a file over maxBytes with
// ErrTooLarge (a *TooLargeError with the size and the cap), all without
// calling change; an error from change is returned (errors.Is) and the
// file is left as it was.
//
// Concurrency. Eight goroutines writing, reading, statting and checking
// their own files in one directory at once see only their own bytes; run
// the suite under -race. Shared file: eight goroutines each appending
// twenty lines to one file with Update, while others replace a second
// file with WriteFile, lose no line: every Update sees the result of the
// one before.
func FileIO(t *testing.T, newFS func(t *testing.T) (fs capabilities.FileIO, root string)) {
	t.Helper()
	setup := func(t *testing.T) (capabilities.FileIO, string) {
		t.Helper()
		fs, root := newFS(t)
		require.NotNil(t, fs, "newFS returned a nil FileIO")
		require.True(t, filepath.IsAbs(root), "root %q is not absolute", root)
		info, err := fs.Stat(context.Background(), root)
		require.NoError(t, err, "root %q must exist", root)
		require.True(t, info.IsDir, "root %q must be a directory", root)
		return fs, root
	}
	t.Run("CancelledContext", func(t *testing.T) { testCancelled(t, setup) })
	t.Run("ReadFile", func(t *testing.T) { testReadFile(t, setup) })
	t.Run("Open", func(t *testing.T) { testOpen(t, setup) })
	t.Run("WriteFile", func(t *testing.T) { testWriteFile(t, setup) })
	t.Run("Stat", func(t *testing.T) { testStat(t, setup) })
	t.Run("Exists", func(t *testing.T) { testExists(t, setup) })
	t.Run("MkdirAll", func(t *testing.T) { testMkdirAll(t, setup) })
	t.Run("Concurrent", func(t *testing.T) { testConcurrent(t, setup) })
	t.Run("Update", func(t *testing.T) { testUpdate(t, setup) })
	t.Run("SharedFile", func(t *testing.T) { testSharedFile(t, setup) })
}

type setupFunc func(t *testing.T) (capabilities.FileIO, string)

var bg = context.Background()

// write writes a file the suite needs as a fixture.
func write(t *testing.T, fs capabilities.FileIO, path string, data []byte) {
	t.Helper()
	require.NoError(t, fs.WriteFile(bg, path, data), "fixture %s", path)
}

// requireErr checks err matches target and its message names path.
func requireErr(t *testing.T, err, target error, path string) {
	t.Helper()
	require.Error(t, err)
	require.ErrorIs(t, err, target)
	assert.Contains(t, err.Error(), path, "the error message should name the path")
}

func testCancelled(t *testing.T, setup setupFunc) {
	fs, root := setup(t)
	file := filepath.Join(root, "file.txt")
	write(t, fs, file, []byte("content"))
	ctx, cancel := context.WithCancel(bg)
	cancel()

	rc, err := fs.Open(ctx, file)
	if err == nil {
		rc.Close()
	}
	assert.ErrorIs(t, err, context.Canceled, "Open")
	_, err = fs.ReadFile(ctx, file)
	assert.ErrorIs(t, err, context.Canceled, "ReadFile")
	_, err = fs.Stat(ctx, file)
	assert.ErrorIs(t, err, context.Canceled, "Stat")
	_, err = fs.Exists(ctx, file)
	assert.ErrorIs(t, err, context.Canceled, "Exists")

	fresh := filepath.Join(root, "fresh.txt")
	assert.ErrorIs(t, fs.WriteFile(ctx, fresh, []byte("x")), context.Canceled, "WriteFile new")
	assert.ErrorIs(t, fs.WriteFile(ctx, file, []byte("changed")), context.Canceled, "WriteFile existing")
	dir := filepath.Join(root, "d1", "d2")
	assert.ErrorIs(t, fs.MkdirAll(ctx, dir), context.Canceled, "MkdirAll")
	assert.ErrorIs(t, fs.Update(ctx, file, 1<<20, func([]byte) ([]byte, error) {
		return []byte("changed"), nil
	}), context.Canceled, "Update")

	ok, err := fs.Exists(bg, fresh)
	require.NoError(t, err)
	assert.False(t, ok, "a cancelled WriteFile created the file")
	got, err := fs.ReadFile(bg, file)
	require.NoError(t, err)
	assert.Equal(t, "content", string(got), "a cancelled WriteFile changed the file")
	ok, err = fs.Exists(bg, filepath.Join(root, "d1"))
	require.NoError(t, err)
	assert.False(t, ok, "a cancelled MkdirAll created a directory")
}

func testReadFile(t *testing.T, setup setupFunc) {
	fs, root := setup(t)
	file := filepath.Join(root, "a.txt")
	write(t, fs, file, []byte("hello\n"))
	got, err := fs.ReadFile(bg, file)
	require.NoError(t, err)
	assert.Equal(t, "hello\n", string(got))

	for _, p := range []string{
		filepath.Join(root, "missing.txt"),
		filepath.Join(root, "nodir", "missing.txt"),
		filepath.Join(file, "under-a-file"),
	} {
		_, err := fs.ReadFile(bg, p)
		requireErr(t, err, capabilities.ErrNotExist, p)
	}
	_, err = fs.ReadFile(bg, root)
	requireErr(t, err, capabilities.ErrIsDirectory, root)
}

func testOpen(t *testing.T, setup setupFunc) {
	fs, root := setup(t)
	small := filepath.Join(root, "small.txt")
	write(t, fs, small, []byte("line 1\r\nline 2"))
	rc, err := fs.Open(bg, small)
	require.NoError(t, err)
	got, err := io.ReadAll(rc)
	require.NoError(t, err)
	require.NoError(t, rc.Close())
	assert.Equal(t, "line 1\r\nline 2", string(got))

	// A reader that reached the end keeps saying so: get_file reads in
	// chunks and asks once more after the last byte (a Read after EOF
	// once hit a pipe the end had closed in the Docker FileIO).
	rc, err = fs.Open(bg, small)
	require.NoError(t, err)
	var chunks []byte
	buf := make([]byte, 3)
	for {
		n, err := rc.Read(buf)
		chunks = append(chunks, buf[:n]...)
		if err == io.EOF {
			break
		}
		require.NoError(t, err, "reading in 3-byte chunks")
	}
	for i := 0; i < 2; i++ {
		n, err := rc.Read(buf)
		assert.Equal(t, 0, n, "a Read after EOF returns no bytes")
		assert.Equal(t, io.EOF, err, "a Read after EOF returns io.EOF again")
	}
	require.NoError(t, rc.Close(), "closing after EOF")
	assert.Equal(t, "line 1\r\nline 2", string(chunks))

	big := make([]byte, 4<<20)
	for i := range big {
		big[i] = byte('a' + i%26)
	}
	bigPath := filepath.Join(root, "big.txt")
	write(t, fs, bigPath, big)
	rc, err = fs.Open(bg, bigPath)
	require.NoError(t, err)
	head := make([]byte, 10)
	_, err = io.ReadFull(rc, head)
	require.NoError(t, err)
	assert.Equal(t, "abcdefghij", string(head))
	require.NoError(t, rc.Close(), "closing after a partial read")

	for _, p := range []string{
		filepath.Join(root, "missing.txt"),
		filepath.Join(root, "nodir", "missing.txt"),
		filepath.Join(small, "under-a-file"),
	} {
		rc, err := fs.Open(bg, p)
		if err == nil {
			rc.Close()
		}
		requireErr(t, err, capabilities.ErrNotExist, p)
	}
	dir := filepath.Join(root, "dir")
	require.NoError(t, fs.MkdirAll(bg, dir))
	rc, err = fs.Open(bg, dir)
	if err == nil {
		rc.Close()
	}
	requireErr(t, err, capabilities.ErrIsDirectory, dir)
}

func testStat(t *testing.T, setup setupFunc) {
	fs, root := setup(t)
	info, err := fs.Stat(bg, root)
	require.NoError(t, err)
	assert.True(t, info.IsDir)
	assert.False(t, info.ModTime.IsZero(), "root ModTime")

	dir := filepath.Join(root, "sub")
	require.NoError(t, fs.MkdirAll(bg, dir))
	info, err = fs.Stat(bg, dir)
	require.NoError(t, err)
	assert.True(t, info.IsDir)
	assert.False(t, info.ModTime.IsZero(), "directory ModTime")

	file := filepath.Join(dir, "f.bin")
	start := time.Now()
	write(t, fs, file, []byte("12345"))
	info, err = fs.Stat(bg, file)
	require.NoError(t, err)
	assert.False(t, info.IsDir)
	assert.Equal(t, int64(5), info.Size)
	require.False(t, info.ModTime.IsZero(), "file ModTime")
	assert.False(t, info.ModTime.Before(start.Add(-ModTimeSlack)),
		"ModTime %v is before the write started (%v) by more than %v", info.ModTime, start, ModTimeSlack)

	prev := info.ModTime
	for i := range 3 {
		write(t, fs, file, []byte(fmt.Sprintf("rewrite %d", i)))
		info, err = fs.Stat(bg, file)
		require.NoError(t, err)
		assert.Equal(t, int64(len(fmt.Sprintf("rewrite %d", i))), info.Size)
		assert.False(t, info.ModTime.Before(prev), "ModTime went backwards: %v after %v", info.ModTime, prev)
		prev = info.ModTime
	}

	for _, p := range []string{filepath.Join(root, "missing"), filepath.Join(root, "no", "such")} {
		_, err := fs.Stat(bg, p)
		requireErr(t, err, capabilities.ErrNotExist, p)
	}
}

func testExists(t *testing.T, setup setupFunc) {
	fs, root := setup(t)
	file := filepath.Join(root, "here.txt")
	write(t, fs, file, nil)
	for _, p := range []string{root, file} {
		ok, err := fs.Exists(bg, p)
		require.NoError(t, err, p)
		assert.True(t, ok, p)
	}
	for _, p := range []string{
		filepath.Join(root, "missing"),
		filepath.Join(root, "no", "such"),
		filepath.Join(file, "under-a-file"),
	} {
		ok, err := fs.Exists(bg, p)
		require.NoError(t, err, "Exists(%s) must not fail for a missing path", p)
		assert.False(t, ok, p)
	}
}

func testMkdirAll(t *testing.T, setup setupFunc) {
	fs, root := setup(t)
	require.NoError(t, fs.MkdirAll(bg, root), "MkdirAll on an existing root")
	nested := filepath.Join(root, "a", "b", "c")
	require.NoError(t, fs.MkdirAll(bg, nested))
	for _, p := range []string{filepath.Join(root, "a"), filepath.Join(root, "a", "b"), nested} {
		info, err := fs.Stat(bg, p)
		require.NoError(t, err, p)
		assert.True(t, info.IsDir, p)
	}
	require.NoError(t, fs.MkdirAll(bg, nested), "MkdirAll is idempotent")
	require.NoError(t, fs.MkdirAll(bg, filepath.Join(root, "a", "b")), "MkdirAll on a parent")

	file := filepath.Join(nested, "f.txt")
	write(t, fs, file, []byte("in new dir"))
	got, err := fs.ReadFile(bg, file)
	require.NoError(t, err)
	assert.Equal(t, "in new dir", string(got))

	assert.Error(t, fs.MkdirAll(bg, file), "MkdirAll onto a file")
	deeper := filepath.Join(file, "x", "y")
	assert.Error(t, fs.MkdirAll(bg, deeper), "MkdirAll under a file")
	info, err := fs.Stat(bg, file)
	require.NoError(t, err)
	assert.False(t, info.IsDir, "the file in the way became a directory")
	got, err = fs.ReadFile(bg, file)
	require.NoError(t, err)
	assert.Equal(t, "in new dir", string(got), "the file in the way changed")
}

func testConcurrent(t *testing.T, setup setupFunc) {
	fs, root := setup(t)
	const workers, rounds = 8, 20
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- worker(fs, filepath.Join(root, fmt.Sprintf("w%d.txt", w)), w, rounds)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		assert.NoError(t, err)
	}
}

// worker writes and checks its own file rounds times.
func worker(fs capabilities.FileIO, path string, w, rounds int) error {
	for r := range rounds {
		want := fmt.Sprintf("worker %d round %d\n%s", w, r, string(make([]byte, w*100+r)))
		if err := fs.WriteFile(bg, path, []byte(want)); err != nil {
			return err
		}
		got, err := fs.ReadFile(bg, path)
		if err != nil {
			return err
		}
		if string(got) != want {
			return fmt.Errorf("%s: read %d bytes %.30q, want %d bytes %.30q", path, len(got), got, len(want), want)
		}
		info, err := fs.Stat(bg, path)
		if err != nil {
			return err
		}
		if info.Size != int64(len(want)) || info.IsDir {
			return fmt.Errorf("%s: Stat %+v, want size %d", path, info, len(want))
		}
		if ok, err := fs.Exists(bg, path); err != nil || !ok {
			return errors.Join(fmt.Errorf("%s: Exists = %v", path, ok), err)
		}
	}
	return nil
}
