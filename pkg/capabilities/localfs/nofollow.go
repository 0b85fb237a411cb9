//go:build unix

package localfs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// openNoFollow opens the absolute path for reading one component at a
// time from "/", each with O_NOFOLLOW, so it opens the file at exactly
// that path or fails: a symlink anywhere on the way (a directory or the
// file swapped for one after a permission check judged the path) is
// capabilities.ErrChangedWhileChecked, never followed. The file is
// opened without blocking (see openFile).
func openNoFollow(path string) (*os.File, error) {
	clean := filepath.Clean(path)
	if !filepath.IsAbs(clean) {
		return nil, fmt.Errorf("%s is not an absolute path", path)
	}
	parts := strings.Split(strings.TrimPrefix(clean, "/"), "/")
	dir, err := unix.Open("/", dirFlags|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	for _, p := range parts[:len(parts)-1] {
		fd, err := unix.Openat(dir, p, dirFlags|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			err = componentErr(dir, p, err)
			unix.Close(dir)
			return nil, err
		}
		unix.Close(dir)
		dir = fd
	}
	defer unix.Close(dir)
	last := parts[len(parts)-1]
	if last == "" { // "/" itself
		last = "."
	}
	fd, err := unix.Openat(dir, last, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, componentErr(dir, last, err)
	}
	return os.NewFile(uintptr(fd), clean), nil
}

// componentErr explains a failed openat of name in dir: a symlink there
// (ELOOP for the file, ENOTDIR for a directory opened with O_DIRECTORY)
// is ErrChangedWhileChecked; anything else keeps its cause.
func componentErr(dir int, name string, err error) error {
	if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
		var st unix.Stat_t
		if unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
			return capabilities.ErrChangedWhileChecked
		}
	}
	return err
}
