package capabilities

import "errors"

// Sentinel errors shared by every implementation; test with errors.Is.
var (
	// ErrPermissionDenied: the user declined, or a rule forbids it.
	ErrPermissionDenied = errors.New("permission denied")
	// ErrNotExist: the file or directory does not exist.
	ErrNotExist = errors.New("does not exist")
	// ErrIsDirectory: a file operation met a directory.
	ErrIsDirectory = errors.New("is a directory")
)

// DeniedError says why a request was declined; it matches
// ErrPermissionDenied.
type DeniedError struct {
	What   string // the command or path
	Reason string // "the user declined", "…"
}

func (e *DeniedError) Error() string {
	return e.What + ": " + ErrPermissionDenied.Error() + ": " + e.Reason
}

func (e *DeniedError) Is(target error) bool { return target == ErrPermissionDenied }
