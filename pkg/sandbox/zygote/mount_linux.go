package zygote

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// procCovered are the parts of a fresh /proc made read-only, as
// bubblewrap's --proc does: kernel knobs and triggers a command running
// as root without capabilities could otherwise still write.
var procCovered = []string{"sys", "sysrq-trigger", "irq", "bus"}

// mountFresh makes the mounts every command gets, before its command
// is known: private propagation, a /proc for its PID namespace (its
// kernel knobs read-only), its own devpts and /dev/shm.
func mountFresh() error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making the mounts private: %w", err)
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mounting /proc: %w", err)
	}
	for _, name := range procCovered {
		p := "/proc/" + name
		if _, err := os.Lstat(p); err != nil {
			continue
		}
		if err := unix.Mount(p, p, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("covering %s: %w", p, err)
		}
		if err := remountReadOnly(p); err != nil {
			return err
		}
	}
	if err := unix.Mount("devpts", "/dev/pts", "devpts", unix.MS_NOSUID|unix.MS_NOEXEC, "newinstance,ptmxmode=0666,mode=620"); err != nil {
		return fmt.Errorf("mounting /dev/pts: %w", err)
	}
	if err := unix.Mount("tmpfs", "/dev/shm", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=1777"); err != nil {
		return fmt.Errorf("mounting /dev/shm: %w", err)
	}
	return nil
}

// mountAll makes the command's own mounts, the ops in order. The
// sources are opened first, while the view still shows them (a fresh
// /tmp covers a workspace below /tmp, and the redacted git configs); a
// source that no longer exists is skipped (a secret deleted since the
// scan needs no mask), any other failure fails the command.
func mountAll(ops []op) error {
	sources := make([]*os.File, len(ops))
	defer func() {
		for _, f := range sources {
			if f != nil {
				f.Close()
			}
		}
	}()
	for i, o := range ops {
		if o.src == "" {
			continue
		}
		fd, err := unix.Open(o.src, unix.O_PATH|unix.O_CLOEXEC, 0)
		if errors.Is(err, unix.ENOENT) {
			continue
		}
		if err != nil {
			return fmt.Errorf("opening %s: %w", o.src, err)
		}
		sources[i] = os.NewFile(uintptr(fd), o.src)
	}
	for i, o := range ops {
		if err := mountOne(o, sources[i]); err != nil {
			return err
		}
	}
	return nil
}

func mountOne(o op, src *os.File) error {
	switch o.kind {
	case opTmpfs:
		if err := os.MkdirAll(o.dst, 0o755); err != nil {
			return fmt.Errorf("mount point %s: %w", o.dst, err)
		}
		if err := unix.Mount("tmpfs", o.dst, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0755"); err != nil {
			return fmt.Errorf("mounting a tmpfs on %s: %w", o.dst, err)
		}
	case opRemountRO:
		return remountReadOnly(o.dst)
	case opBind, opROBind:
		if src == nil {
			return nil // gone since the scan
		}
		if err := mountPoint(src, o.dst); err != nil {
			return err
		}
		from := "/proc/self/fd/" + strconv.Itoa(int(src.Fd()))
		if err := unix.Mount(from, o.dst, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("binding %s on %s: %w", o.src, o.dst, err)
		}
		if o.kind == opROBind {
			return remountReadOnly(o.dst)
		}
	}
	return nil
}

// mountPoint makes dst when it is missing (inside a fresh tmpfs, say):
// a directory for a directory, an empty file for anything else.
func mountPoint(src *os.File, dst string) error {
	if _, err := os.Lstat(dst); err == nil {
		return nil
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(src.Fd()), &st); err != nil {
		return fmt.Errorf("%s: %w", src.Name(), err)
	}
	if st.Mode&unix.S_IFMT == unix.S_IFDIR {
		return os.MkdirAll(dst, 0o755)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY, 0o444)
	if err != nil {
		return fmt.Errorf("mount point %s: %w", dst, err)
	}
	return f.Close()
}

// remountReadOnly makes the mount at path read-only, keeping the flags
// it has (in a user namespace, dropping a locked one is refused).
func remountReadOnly(path string) error {
	var fs unix.Statfs_t
	if err := unix.Statfs(path, &fs); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	keep := uintptr(fs.Flags) & (unix.MS_NOSUID | unix.MS_NODEV | unix.MS_NOEXEC | unix.MS_NOATIME | unix.MS_NODIRATIME | unix.MS_RELATIME)
	if err := unix.Mount("", path, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY|keep, ""); err != nil {
		return fmt.Errorf("making %s read-only: %w", path, err)
	}
	return nil
}
