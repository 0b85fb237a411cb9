package localfs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/pathlock"
)

// newFileMode is the mode of a file WriteFile creates.
const newFileMode fs.FileMode = 0o644

// maxLinks bounds symlink hops, as the OS's ELOOP does.
const maxLinks = 40

// locks serialises WriteFile and Update per path. It is the package's one
// piece of shared state on purpose: the disk is one per process, so two FS
// values (two threads' environments) editing one file must wait for each
// other just as two calls on one FS do.
var locks pathlock.Table

// WriteFile replaces path's content atomically (see the package doc).
func (*FS) WriteFile(ctx context.Context, path string, data []byte) error {
	unlock, err := lock(ctx, "write", path)
	if err != nil {
		return err
	}
	defer unlock()
	t, err := openTarget(ctx, "write", path)
	if err != nil {
		return err
	}
	defer t.close()
	perm, err := t.existingPerm()
	switch {
	case errors.Is(err, capabilities.ErrNotExist):
		perm = newFileMode
	case err != nil:
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return t.replace(data, perm)
}

// Update replaces path's content with change(old) while holding path's
// lock, reading at most maxBytes+1 bytes.
func (*FS) Update(ctx context.Context, path string, maxBytes int64, change func(old []byte) ([]byte, error)) error {
	unlock, err := lock(ctx, "update", path)
	if err != nil {
		return err
	}
	defer unlock()
	t, err := openTarget(ctx, "update", path)
	if err != nil {
		return err
	}
	defer t.close()
	perm, err := t.existingPerm()
	if err != nil {
		return err
	}
	old, err := t.read(ctx, maxBytes)
	if err != nil {
		return err
	}
	data, err := change(old)
	if err != nil {
		return fmt.Errorf("update %s: %w", path, err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("update %s: %w", path, err)
	}
	return t.replace(data, perm)
}

func lock(ctx context.Context, op, path string) (func(), error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s %s: %w", op, path, err)
	}
	unlock, err := locks.Lock(ctx, filepath.Clean(path))
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", op, path, err)
	}
	return unlock, nil
}

// target is the file a change lands in: a handle on its directory and its
// name there. Every step after opening the directory goes through the
// handle, so swapping a directory of the path for a symlink afterwards
// cannot move the write.
type target struct {
	op, path string   // for errors: the operation and the caller's path
	dir      *os.Root // the directory holding the file
	name     string   // the file's name in dir, never a symlink we follow
}

// openTarget opens the directory of the file path names. Without a
// confinement in ctx, symlinks are followed as the OS does, the last
// component's included (writing through a link changes the file it points
// to). With one (capabilities.WithBeneath), the directory is reached
// beneath its root one component at a time, never through a symlink
// leading out (os.Root: openat with O_NOFOLLOW per component, no newer
// syscalls), and the file itself must not be a symlink.
func openTarget(ctx context.Context, op, path string) (*target, error) {
	if b, ok := capabilities.BeneathFrom(ctx); ok {
		return openBeneath(op, path, b)
	}
	resolved, err := resolveLinks(path)
	if err != nil {
		return nil, wrap(op, path, err)
	}
	dirName, name := splitPath(resolved)
	dir, err := os.OpenRoot(dirName)
	if err != nil {
		return nil, wrap(op, path, notDir(err, func() (fs.FileInfo, error) { return os.Stat(dirName) }))
	}
	return &target{op: op, path: path, dir: dir, name: name}, nil
}

func openBeneath(op, path string, b capabilities.Beneath) (*target, error) {
	rel := filepath.Clean(b.Rel)
	if rel == "." || filepath.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, fmt.Errorf("%s %s: %q is not a file beneath %s", op, path, b.Rel, b.Root)
	}
	root, err := os.OpenRoot(b.Root)
	if err != nil {
		return nil, wrap(op, path, err)
	}
	defer root.Close()
	dirName, name := filepath.Split(rel)
	if dirName == "" {
		dirName = "."
	}
	dir, err := root.OpenRoot(dirName)
	if err != nil {
		return nil, wrap(op, path, notDir(err, func() (fs.FileInfo, error) { return root.Stat(dirName) }))
	}
	return &target{op: op, path: path, dir: dir, name: name}, nil
}

// notDir turns OpenRoot's error for a directory that is a file into
// ENOTDIR (os.OpenRoot reports it with an error of its own), so that it
// maps onto ErrNotExist like a file among a path's parents does elsewhere.
func notDir(err error, stat func() (fs.FileInfo, error)) error {
	if info, serr := stat(); serr == nil && !info.IsDir() {
		return syscall.ENOTDIR
	}
	return err
}

func (t *target) close() { t.dir.Close() }

func (t *target) errorf(err error) error { return wrap(t.op, t.path, err) }

// existingPerm returns the permission bits of the existing regular file,
// after checking the process may write it (the rename would otherwise get
// around a read-only file). A missing file is ErrNotExist; a directory,
// FIFO, device or socket is refused: a rename would replace it and
// writing into it could block forever.
func (t *target) existingPerm() (fs.FileMode, error) {
	info, err := t.dir.Lstat(t.name)
	if err != nil {
		return 0, t.errorf(err)
	}
	switch {
	case info.Mode()&fs.ModeSymlink != 0:
		// Links were resolved when the target was opened (or, confined,
		// refused): the file became a link since.
		return 0, fmt.Errorf("%s %s: became a symlink while being changed; not following it", t.op, t.path)
	case info.IsDir():
		return 0, fmt.Errorf("%s %s: %w", t.op, t.path, capabilities.ErrIsDirectory)
	case !info.Mode().IsRegular():
		return 0, fmt.Errorf("%s %s: %w", t.op, t.path, capabilities.ErrNotRegular)
	}
	f, err := t.dir.OpenFile(t.name, os.O_WRONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return 0, t.errorf(err)
	}
	f.Close()
	return info.Mode().Perm(), nil
}

// read returns the file's content, refusing it above maxBytes after
// reading at most maxBytes+1 bytes.
func (t *target) read(ctx context.Context, maxBytes int64) ([]byte, error) {
	f, err := t.dir.OpenFile(t.name, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, t.errorf(err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, t.errorf(err)
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s %s: %w", t.op, t.path, capabilities.ErrNotRegular)
	}
	return readCapped(ctx, f, t.path, info.Size(), maxBytes)
}

// replace writes data to a temporary file in the target's directory and
// renames it over the file, so a reader sees the old content or the new,
// never a mix, and a failed write leaves the old file intact.
func (t *target) replace(data []byte, perm fs.FileMode) (err error) {
	tmp, f, err := t.createTemp()
	if err != nil {
		return t.errorf(err)
	}
	defer func() {
		if err != nil {
			f.Close()
			t.dir.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return t.errorf(err)
	}
	// Chmod, not the umask-filtered create mode: new files are 0644 and
	// existing ones keep exactly their bits.
	if err = f.Chmod(perm); err != nil {
		return t.errorf(err)
	}
	if err = f.Sync(); err != nil {
		return t.errorf(err)
	}
	if err = f.Close(); err != nil {
		return t.errorf(err)
	}
	if err = t.dir.Rename(tmp, t.name); err != nil {
		return t.errorf(err)
	}
	return nil
}

// createTemp creates a new, private file next to the target.
func (t *target) createTemp() (string, *os.File, error) {
	for range 10 {
		var r [8]byte
		if _, err := rand.Read(r[:]); err != nil {
			return "", nil, err
		}
		name := "." + t.name + ".magenta-" + hex.EncodeToString(r[:]) + ".tmp"
		f, err := t.dir.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
		if !errors.Is(err, fs.ErrExist) {
			return name, f, err
		}
	}
	return "", nil, errors.New("cannot create a temporary file")
}

// resolveLinks follows symlinks at path's last component, the way the OS
// does when opening it for writing, and returns the path to write (which
// may not exist: a dangling link names the file to create). Relative link
// targets are joined to the link's directory without lexical cleaning, so
// ".." is resolved by the OS through any symlinked directory.
func resolveLinks(path string) (string, error) {
	p := path
	for range maxLinks {
		info, err := os.Lstat(p)
		if err != nil || info.Mode()&fs.ModeSymlink == 0 {
			return p, nil
		}
		link, err := os.Readlink(p)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(link) {
			dir, _ := splitPath(p)
			link = strings.TrimSuffix(dir, string(os.PathSeparator)) + string(os.PathSeparator) + link
		}
		p = link
	}
	return "", &fs.PathError{Op: "open", Path: path, Err: syscall.ELOOP}
}

// splitPath splits a path at its last separator without cleaning it;
// the directory of "/x" is "/", of "x" ".".
func splitPath(p string) (dir, base string) {
	i := strings.LastIndexByte(p, os.PathSeparator)
	if i < 0 {
		return ".", p
	}
	dir, base = p[:i], p[i+1:]
	if dir == "" {
		dir = string(os.PathSeparator)
	}
	return dir, base
}
