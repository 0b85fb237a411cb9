package capabilities

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"
)

// Sentinel errors of file access (the shared ones are in errors.go).
var (
	// ErrNotRegular: a read or write met a FIFO, a device or a socket,
	// which could block forever or never end.
	ErrNotRegular = errors.New("is not a regular file")
	// ErrTooLarge: the file is larger than the caller's cap (a
	// *TooLargeError says by how much); nothing was read whole.
	ErrTooLarge = errors.New("is too large")
	// ErrDiskChanged: the file changed on disk while the editor holds
	// unsaved changes to it, so writing either side would lose the other.
	ErrDiskChanged = errors.New("changed on disk while its buffer has unsaved changes")
	// ErrChangedWhileChecked: the file a permission decorator judged was
	// no longer the one at its path when the read opened it (a directory
	// or the file itself became a symlink): nothing was read.
	ErrChangedWhileChecked = errors.New("the file changed while it was being checked; read it again")
)

// TooLargeError reports a file over a cap; it matches ErrTooLarge.
type TooLargeError struct {
	Size, Max int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s: %d bytes, the limit is %d", ErrTooLarge, e.Size, e.Max)
}

func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge }

// Beneath is where a permission decorator requires a disk access to stay:
// Rel (a relative, clean path without "..") resolved inside the directory
// Root at the time of the access, never through a symlink leading out.
// The decorator judged the path when it was one thing; a directory
// swapped for a symlink afterwards must not carry the write elsewhere.
type Beneath struct {
	Root, Rel string
}

type beneathKey struct{}

// WithBeneath returns ctx asking the disk FileIO to confine the access it
// carries to b.
func WithBeneath(ctx context.Context, b Beneath) context.Context {
	return context.WithValue(ctx, beneathKey{}, b)
}

// BeneathFrom returns the confinement in ctx, if any.
func BeneathFrom(ctx context.Context) (Beneath, bool) {
	b, ok := ctx.Value(beneathKey{}).(Beneath)
	return b, ok
}

// Checked is the path a permission decorator judged for a read: the
// caller's path with every symlink resolved. The disk FileIO opens
// exactly Checked, following no symlink on the way (every component is
// opened with O_NOFOLLOW), and fails with ErrChangedWhileChecked when it
// meets one: the file read is the file judged, whatever was swapped in
// between. A buffer-aware FileIO does not let the editor read the disk
// for such a read (no reload of a buffer from a file that may have been
// swapped): an unmodified buffer is read from the disk, as above.
type Checked struct {
	Path string
}

type checkedKey struct{}

// WithChecked returns ctx asking the FileIO below to read c.Path (see
// Checked).
func WithChecked(ctx context.Context, c Checked) context.Context {
	return context.WithValue(ctx, checkedKey{}, c)
}

// CheckedFrom returns the judged path in ctx, if any.
func CheckedFrom(ctx context.Context) (Checked, bool) {
	c, ok := ctx.Value(checkedKey{}).(Checked)
	return c, ok
}

// FileInfo is what Stat reports.
type FileInfo struct {
	Size    int64
	ModTime time.Time
	IsDir   bool
}

// FileIO is file access for tools. Paths are absolute and cleaned by the
// caller (tools resolve them against the environment's cwd).
//
// Errors match, with errors.Is: ErrNotExist when the path (or, for
// WriteFile, its parent directory) does not exist; ErrIsDirectory when a
// file operation meets a directory; ErrPermissionDenied when a decorator
// refused (a *DeniedError says why). Other errors are I/O failures.
//
// Implementations are safe for concurrent use. The buffer-aware one reads
// a loaded buffer's text (unsaved changes included) and writes through
// the buffer; the others read and write the disk.
type FileIO interface {
	// Open streams the file's content; read only what you need (get_file
	// on a 10 MB file stops at its cap).
	Open(ctx context.Context, path string) (io.ReadCloser, error)
	// ReadFile returns the whole content.
	ReadFile(ctx context.Context, path string) ([]byte, error)
	// WriteFile replaces the content, creating the file (0644) when it
	// does not exist; the parent directory must exist.
	WriteFile(ctx context.Context, path string, data []byte) error
	// Update replaces path's content with change(old), reading and
	// writing as one step for path (see above). A missing path fails with
	// ErrNotExist and a file larger than maxBytes with a *TooLargeError,
	// before change is called and without reading it whole; an error from
	// change is returned (wrapped) and nothing is written. change may run
	// more than once (the buffer-aware FileIO recomputes it when the user
	// typed meanwhile) and must not call the FileIO: it runs under the
	// path's lock.
	Update(ctx context.Context, path string, maxBytes int64, change func(old []byte) ([]byte, error)) error
	// Stat describes path.
	Stat(ctx context.Context, path string) (FileInfo, error)
	// Exists reports whether path exists (false with a nil error when it
	// does not).
	Exists(ctx context.Context, path string) (bool, error)
	// MkdirAll creates path and its parents (0755); existing directories
	// are fine; a file in the way is an error.
	MkdirAll(ctx context.Context, path string) error
}

type noQuestionsKey struct{}

// WithoutQuestions marks ctx for an access no question can be attached
// to: a permission decorator then refuses, with its reason, what it
// would otherwise ask the user about (the diagnostics of every open
// buffer, one of which may be a secret the user has open).
func WithoutQuestions(ctx context.Context) context.Context {
	return context.WithValue(ctx, noQuestionsKey{}, true)
}

// NoQuestions reports whether ctx was marked by WithoutQuestions.
func NoQuestions(ctx context.Context) bool {
	v, _ := ctx.Value(noQuestionsKey{}).(bool)
	return v
}
