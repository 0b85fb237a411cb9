package capabilities

import (
	"context"
	"io"
	"time"
)

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
	// Stat describes path.
	Stat(ctx context.Context, path string) (FileInfo, error)
	// Exists reports whether path exists (false with a nil error when it
	// does not).
	Exists(ctx context.Context, path string) (bool, error)
	// MkdirAll creates path and its parents (0755); existing directories
	// are fine; a file in the way is an error.
	MkdirAll(ctx context.Context, path string) error
}
