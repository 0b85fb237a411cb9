package localfs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// newFileMode is the mode of a file WriteFile creates.
const newFileMode fs.FileMode = 0o644

// maxLinks bounds symlink hops, as the OS's ELOOP does.
const maxLinks = 40

// WriteFile replaces path's content atomically (see the package doc).
func (*FS) WriteFile(ctx context.Context, path string, data []byte) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	target, err := resolveLinks(path)
	if err != nil {
		return wrap("write", path, err)
	}
	perm := newFileMode
	info, err := os.Stat(target)
	switch {
	case err == nil && info.IsDir():
		return fmt.Errorf("write %s: %w", path, capabilities.ErrIsDirectory)
	case err == nil && !info.Mode().IsRegular():
		return writeInPlace(path, target, data)
	case err == nil:
		perm = info.Mode().Perm()
		// The rename below would replace a file we may not write; ask
		// the OS first, as a plain write would.
		f, err := os.OpenFile(target, os.O_WRONLY, 0)
		if err != nil {
			return wrap("write", path, err)
		}
		f.Close()
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		// New file; creating the temporary file reports a missing parent.
	default:
		return wrap("write", path, err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return writeAtomic(path, target, data, perm)
}

// writeAtomic writes data to a temporary file next to target and renames
// it over target. path is the caller's name, for errors.
func writeAtomic(path, target string, data []byte, perm fs.FileMode) (err error) {
	dir, base := splitPath(target)
	tmp, err := os.CreateTemp(dir, "."+base+".magenta-*.tmp")
	if err != nil {
		return wrap("write", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return wrap("write", path, err)
	}
	// Chmod, not the umask-filtered create mode: new files are 0644 and
	// existing ones keep exactly their bits.
	if err = tmp.Chmod(perm); err != nil {
		return wrap("write", path, err)
	}
	if err = tmp.Sync(); err != nil {
		return wrap("write", path, err)
	}
	if err = tmp.Close(); err != nil {
		return wrap("write", path, err)
	}
	if err = os.Rename(tmp.Name(), target); err != nil {
		return wrap("write", path, err)
	}
	return nil
}

// writeInPlace writes to a FIFO, a device or the like, which a rename
// would replace instead of feeding.
func writeInPlace(path, target string, data []byte) error {
	f, err := os.OpenFile(target, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return wrap("write", path, err)
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return wrap("write", path, err)
	}
	return nil
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
