package localshell

import (
	"fmt"
	"os"
	"syscall"
	"unsafe"

	"github.com/creack/pty"
)

// OpenPTY opens a pseudo-terminal: the master the Shell reads and
// writes, the slave the command gets as stdin, stdout and stderr.
// Options.OpenPTY replaces it (tests make it fail to see the fallback).
type OpenPTY func() (master, slave *os.File, err error)

// openPTY is the default OpenPTY: github.com/creack/pty's Open, with the
// master made non-blocking. pty.Open's ioctls go through File.Fd, which
// puts the master in blocking mode: reads could then not be cut short by
// a deadline (a process that left the supervisor's reach holding the
// slave would hang the drain) and Close would not interrupt them. A
// non-blocking duplicate goes through Go's poller instead.
func openPTY() (master, slave *os.File, err error) {
	m, s, err := pty.Open()
	if err != nil {
		return nil, nil, err
	}
	master, err = pollable(m)
	m.Close()
	if err != nil {
		s.Close()
		return nil, nil, err
	}
	return master, s, nil
}

// pollable duplicates f's descriptor (close-on-exec), makes it
// non-blocking and wraps it so reads and writes use the runtime poller.
func pollable(f *os.File) (*os.File, error) {
	fd, _, errno := syscall.Syscall(syscall.SYS_FCNTL, f.Fd(), syscall.F_DUPFD_CLOEXEC, 0)
	if errno != 0 {
		return nil, fmt.Errorf("pty: dup: %w", errno)
	}
	if err := syscall.SetNonblock(int(fd), true); err != nil {
		syscall.Close(int(fd))
		return nil, fmt.Errorf("pty: %w", err)
	}
	return os.NewFile(fd, f.Name()), nil
}

// setSize sets f's window size (the foreground process group of the
// terminal gets SIGWINCH). It goes through SyscallConn, not pty.Setsize,
// which would put a pollable master back in blocking mode.
func setSize(f *os.File, rows, cols int) error {
	ws := pty.Winsize{Rows: uint16(rows), Cols: uint16(cols)}
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var errno syscall.Errno
	err = rc.Control(func(fd uintptr) {
		_, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCSWINSZ, uintptr(unsafe.Pointer(&ws)))
	})
	if err != nil {
		return err
	}
	if errno != 0 {
		return errno
	}
	return nil
}
