package fdmsg

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
)

// Send writes v as one message of at most max bytes, with files
// attached. A larger message is refused rather than cut. Each file is
// set blocking (os.File.Fd does that), as a child's standard files must
// be.
func Send(c *net.UnixConn, v any, max int, files ...*os.File) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if len(data) > max {
		return fmt.Errorf("message of %d bytes, more than %d", len(data), max)
	}
	var oob []byte
	if len(files) > 0 {
		fds := make([]int, len(files))
		for i, f := range files {
			fds[i] = int(f.Fd())
		}
		oob = syscall.UnixRights(fds...)
	}
	_, _, err = c.WriteMsgUnix(data, oob, nil)
	return err
}

// Receive reads one message of at most max bytes into v and returns the
// files attached to it, at most maxFiles (the caller closes them; they
// are close-on-exec). A truncated message or control data is an error:
// nothing half-read is acted on. The peer's end of the socket closed is
// net.ErrClosed.
func Receive(c *net.UnixConn, v any, max, maxFiles int) ([]*os.File, error) {
	// The buffer is the packet's size, learnt by peeking, not max: a
	// buffer of max (1 MiB for a command) made every receive grow the
	// heap, ~0.7 ms of a spare supervisor's way to its command.
	size, err := nextSize(c)
	if err != nil {
		return nil, err
	}
	buf := make([]byte, min(size, max)+1)
	oob := make([]byte, syscall.CmsgSpace(maxFiles*4))
	n, oobn, flags, _, err := c.ReadMsgUnix(buf, oob)
	if err != nil {
		return nil, err
	}
	files, ferr := parseRights(oob[:oobn])
	if flags&(syscall.MSG_TRUNC|syscall.MSG_CTRUNC) != 0 || n > max {
		CloseAll(files)
		return nil, errors.New("message truncated")
	}
	if ferr != nil {
		CloseAll(files)
		return nil, ferr
	}
	if n == 0 {
		CloseAll(files)
		return nil, net.ErrClosed
	}
	if err := json.Unmarshal(buf[:n], v); err != nil {
		CloseAll(files)
		return nil, fmt.Errorf("malformed message: %w", err)
	}
	return files, nil
}

// nextSize waits for the next packet and returns its length, without
// reading it (MSG_PEEK; MSG_TRUNC makes Linux return the whole length).
// 0 is the peer's end of the socket, which Receive reads as such.
func nextSize(c *net.UnixConn) (int, error) {
	rc, err := c.SyscallConn()
	if err != nil {
		return 0, err
	}
	var n int
	var rerr error
	var probe [1]byte
	err = rc.Read(func(fd uintptr) bool {
		for {
			n, _, _, _, rerr = syscall.Recvmsg(int(fd), probe[:], nil, syscall.MSG_PEEK|syscall.MSG_TRUNC)
			if rerr != syscall.EINTR {
				return rerr != syscall.EAGAIN
			}
		}
	})
	if err != nil {
		return 0, err
	}
	if rerr != nil {
		return 0, rerr
	}
	return n, nil
}

func parseRights(oob []byte) ([]*os.File, error) {
	if len(oob) == 0 {
		return nil, nil
	}
	msgs, err := syscall.ParseSocketControlMessage(oob)
	if err != nil {
		return nil, err
	}
	var files []*os.File
	for _, m := range msgs {
		fds, err := syscall.ParseUnixRights(&m)
		if err != nil {
			CloseAll(files)
			return nil, err
		}
		for _, fd := range fds {
			syscall.CloseOnExec(fd)
			files = append(files, os.NewFile(uintptr(fd), "passed"))
		}
	}
	return files, nil
}

// CloseAll closes files.
func CloseAll(files []*os.File) {
	for _, f := range files {
		_ = f.Close()
	}
}

// Pair returns the two ends of a new SOCK_SEQPACKET socket pair as
// files (close-on-exec), one to keep and one to give a child.
func Pair() (*os.File, *os.File, error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	return os.NewFile(uintptr(fds[0]), "socket"), os.NewFile(uintptr(fds[1]), "socket"), nil
}

// Conn makes f, one end of a Unix socket, a connection; f is closed
// (the connection has its own descriptor).
func Conn(f *os.File) (*net.UnixConn, error) {
	defer f.Close()
	c, err := net.FileConn(f)
	if err != nil {
		return nil, err
	}
	u, ok := c.(*net.UnixConn)
	if !ok {
		c.Close()
		return nil, errors.New("not a Unix socket")
	}
	return u, nil
}
