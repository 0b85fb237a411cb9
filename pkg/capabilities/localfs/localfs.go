package localfs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"syscall"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// FS is the local disk. The zero value is ready; it holds no state and is
// safe for concurrent use.
type FS struct{}

var _ capabilities.FileIO = (*FS)(nil)

// New returns a local-disk FileIO.
func New() *FS { return &FS{} }

// Open streams path's content; the reader checks ctx before every Read.
func (*FS) Open(ctx context.Context, path string) (io.ReadCloser, error) {
	f, _, err := openFile(ctx, "open", path)
	if err != nil {
		return nil, err
	}
	return &ctxFile{ctx: ctx, f: f, path: path}, nil
}

// ReadFile returns path's whole content.
func (*FS) ReadFile(ctx context.Context, path string) ([]byte, error) {
	f, info, err := openFile(ctx, "read", path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readCapped(ctx, f, path, info.Size(), math.MaxInt64-1)
}

// readCapped reads f (size bytes by its stat) while ctx lasts, refusing it
// above maxBytes: by its size before reading, and by reading at most
// maxBytes+1 bytes in case it grew since.
func readCapped(ctx context.Context, f *os.File, path string, size, maxBytes int64) ([]byte, error) {
	if size > maxBytes {
		return nil, fmt.Errorf("read %s: %w", path, &capabilities.TooLargeError{Size: size, Max: maxBytes})
	}
	if size < 0 || size > 1<<30 {
		size = 0 // unknown or huge: let the buffer grow
	}
	buf := bytes.NewBuffer(make([]byte, 0, size+1))
	if _, err := buf.ReadFrom(io.LimitReader(&ctxFile{ctx: ctx, f: f, path: path}, maxBytes+1)); err != nil {
		return nil, err
	}
	if int64(buf.Len()) > maxBytes {
		return nil, fmt.Errorf("read %s: %w", path, &capabilities.TooLargeError{Size: int64(buf.Len()), Max: maxBytes})
	}
	return buf.Bytes(), nil
}

// Stat describes path, following symlinks.
func (*FS) Stat(ctx context.Context, path string) (capabilities.FileInfo, error) {
	if err := ctx.Err(); err != nil {
		return capabilities.FileInfo{}, fmt.Errorf("stat %s: %w", path, err)
	}
	info, err := os.Stat(path)
	if err != nil {
		return capabilities.FileInfo{}, wrap("stat", path, err)
	}
	return capabilities.FileInfo{Size: info.Size(), ModTime: info.ModTime(), IsDir: info.IsDir()}, nil
}

// Exists reports whether path exists, following symlinks (a dangling link
// does not exist).
func (*FS) Exists(ctx context.Context, path string) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, fmt.Errorf("exists %s: %w", path, err)
	}
	_, err := os.Stat(path)
	if err == nil {
		return true, nil
	}
	if err = wrap("stat", path, err); errors.Is(err, capabilities.ErrNotExist) {
		return false, nil
	}
	return false, err
}

// MkdirAll creates path and its missing parents with mode 0755 (less the
// umask), beneath the confinement in ctx if there is one.
func (*FS) MkdirAll(ctx context.Context, path string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("mkdir %s: %w", path, err)
	}
	err := mkdirAll(ctx, path)
	if err == nil {
		return nil
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		// A file in the way (ENOTDIR) stays its own error here: the
		// path is not missing, it is blocked.
		cause := pe.Err
		if !errors.Is(cause, syscall.ENOTDIR) {
			cause = mapErr(cause)
		}
		if pe.Path != path {
			return fmt.Errorf("mkdir %s: %s: %w", path, pe.Path, cause)
		}
		return fmt.Errorf("mkdir %s: %w", path, cause)
	}
	return wrap("mkdir", path, err)
}

func mkdirAll(ctx context.Context, path string) error {
	b, ok := capabilities.BeneathFrom(ctx)
	if !ok {
		return os.MkdirAll(path, 0o755)
	}
	root, err := os.OpenRoot(b.Root)
	if err != nil {
		return err
	}
	defer root.Close()
	return root.MkdirAll(b.Rel, 0o755)
}

// openFile opens path for reading and refuses directories, FIFOs, devices
// and sockets. It opens without blocking (a FIFO without a writer would
// block open(2) forever) and checks the opened file, not the name, so a
// file swapped for a FIFO in between is caught too. With a judged path in
// ctx (capabilities.WithChecked) it opens that path without following any
// symlink.
func openFile(ctx context.Context, op, path string) (*os.File, fs.FileInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, fmt.Errorf("%s %s: %w", op, path, err)
	}
	var f *os.File
	var err error
	if c, ok := capabilities.CheckedFrom(ctx); ok {
		// The permission decorator judged c.Path: open that file and
		// no other (see capabilities.Checked).
		f, err = openNoFollow(c.Path)
	} else {
		f, err = os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	}
	if err != nil {
		return nil, nil, wrap(op, path, err)
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, wrap(op, path, err)
	}
	switch {
	case info.IsDir():
		f.Close()
		return nil, nil, fmt.Errorf("%s %s: %w", op, path, capabilities.ErrIsDirectory)
	case !info.Mode().IsRegular():
		f.Close()
		return nil, nil, fmt.Errorf("%s %s: %w", op, path, capabilities.ErrNotRegular)
	}
	return f, info, nil
}

// ctxFile reads f while ctx lasts, naming path in errors.
type ctxFile struct {
	ctx  context.Context
	f    *os.File
	path string
}

func (c *ctxFile) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, fmt.Errorf("read %s: %w", c.path, err)
	}
	n, err := c.f.Read(p)
	if err != nil && err != io.EOF {
		err = wrap("read", c.path, err)
	}
	return n, err
}

func (c *ctxFile) Close() error { return c.f.Close() }

// wrap names op and path and maps the OS cause onto the contract's
// sentinels.
func wrap(op, path string, err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		err = pe.Err
	case errors.As(err, &le):
		err = le.Err
	}
	return fmt.Errorf("%s %s: %w", op, path, mapErr(err))
}

// mapErr turns a bare OS error into a contract sentinel when one fits.
// ENOTDIR means a parent is a regular file, so the path does not exist.
func mapErr(err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return capabilities.ErrNotExist
	case errors.Is(err, syscall.EISDIR):
		return capabilities.ErrIsDirectory
	}
	return err
}
