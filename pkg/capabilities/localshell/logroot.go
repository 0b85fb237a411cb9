package localshell

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// settleLogRoot returns the directory logs go to: root when it is safe,
// else the per-user fallback root-<uid>, with a warning for the user.
// Safe means a real directory (not a symlink) owned by the user; a
// missing one is created 0700. On a shared /tmp another user can plant
// /tmp/magenta (or a symlink there) to read or redirect the logs.
func settleLogRoot(root string) (dir, warning string, err error) {
	return settleLogRootFor(root, os.Getuid())
}

func settleLogRootFor(root string, uid int) (dir, warning string, err error) {
	why := usableDir(root, uid)
	if why == nil {
		return root, "", nil
	}
	fallback := root + "-" + strconv.Itoa(uid)
	if ferr := usableDir(fallback, uid); ferr != nil {
		err = fmt.Errorf("no usable log directory: %s: %v; %s: %v", root, why, fallback, ferr)
		return root, "magenta: " + err.Error(), err
	}
	return fallback, fmt.Sprintf("magenta: logs go to %s: %s %v", fallback, root, why), nil
}

var (
	errSymlink  = errors.New("is a symbolic link")
	errNotDir   = errors.New("is not a directory")
	errNotOwner = errors.New("belongs to another user")
)

// usableDir creates dir (0700) when missing and says why it cannot hold
// logs, or nil.
func usableDir(dir string, uid int) error {
	if err := os.MkdirAll(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) && !errors.Is(err, syscall.ENOTDIR) {
		return err
	}
	fi, err := os.Lstat(dir)
	switch {
	case err != nil:
		return err
	case fi.Mode()&os.ModeSymlink != 0:
		return errSymlink
	case !fi.IsDir():
		return errNotDir
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != uid {
		return errNotOwner
	}
	return nil
}
