package acp

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unsafe"
)

// nodeOf is fi's identity (false: unknown, and the client is not asked).
func nodeOf(fi os.FileInfo) (nodeState, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nodeState{}, false
	}
	return nodeState{dev: st.Dev, ino: st.Ino}, true
}

// entryEvents are the changes of a directory entry that move what a path
// through it names: a link, file or directory made, removed or renamed
// there.
const entryEvents = syscall.IN_CREATE | syscall.IN_DELETE | syscall.IN_MOVED_FROM | syscall.IN_MOVED_TO

// pathWatch watches every directory on an absolute path, from "/" down
// to the file's, for changes of the entry the path goes through (inotify:
// the kernel queues an event before the change's system call returns).
// Set up top-down before the path is walked, it tells afterwards whether
// anything the walk went through may have changed since: a directory
// swapped for a link and back while the client read is seen, however
// fast, and a change elsewhere in those directories is not.
type pathWatch struct {
	fd int
	// names are, by watch, the entry of that directory the path goes
	// through; file is the watch of the file's directory.
	names map[int32]string
	file  int32
}

// watchPath watches path's directories; an error (no inotify, a
// directory that cannot be watched) sends the access to the disk.
func watchPath(path string) (*pathWatch, error) {
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		return nil, err
	}
	w := &pathWatch{fd: fd, names: map[int32]string{}}
	parts := strings.Split(strings.TrimPrefix(path, "/"), "/")
	dir := "/"
	for i, name := range parts {
		if name == "" {
			w.close()
			return nil, errNotForClient
		}
		wd, err := syscall.InotifyAddWatch(fd, dir, entryEvents|syscall.IN_ONLYDIR|syscall.IN_DONT_FOLLOW)
		if err != nil {
			w.close()
			return nil, err
		}
		w.names[int32(wd)] = name
		if i == len(parts)-1 {
			w.file = int32(wd)
		}
		dir = filepath.Join(dir, name)
	}
	return w, nil
}

// changes reads what happened since the watch began: whether an entry
// of a directory above the file's changed (dirs), and how the file's own
// entry did (file: replaced, as an editor's save replaces it, or
// removed). A full queue, or a watched directory gone, counts as dirs.
func (w *pathWatch) changes() (dirs, file bool) {
	buf := make([]byte, 64<<10)
	for {
		n, err := syscall.Read(w.fd, buf)
		if err != nil || n <= 0 {
			if errors.Is(err, syscall.EAGAIN) {
				return dirs, file
			}
			return true, file
		}
		for off := 0; off+syscall.SizeofInotifyEvent <= n; {
			ev := (*syscall.InotifyEvent)(unsafe.Pointer(&buf[off]))
			name := buf[off+syscall.SizeofInotifyEvent : off+syscall.SizeofInotifyEvent+int(ev.Len)]
			off += syscall.SizeofInotifyEvent + int(ev.Len)
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			switch {
			case ev.Mask&(syscall.IN_Q_OVERFLOW|syscall.IN_IGNORED|syscall.IN_UNMOUNT) != 0:
				dirs = true
			case ev.Mask&entryEvents == 0 || string(name) != w.names[ev.Wd]:
			case ev.Wd == w.file:
				file = true
			default:
				dirs = true
			}
		}
	}
}

func (w *pathWatch) close() { _ = syscall.Close(w.fd) }
