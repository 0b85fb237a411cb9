package zygote

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
)

// ErrNotTaken: the parent did not receive the command (it is not
// running, or died before the request reached it), so nothing of it ran
// and it can be started another way. An error after the request was
// sent is never ErrNotTaken: the command may have run.
var ErrNotTaken = errors.New("the confinement parent did not take the command")

// request is what a client sends for one command, with its standard
// streams attached (SCM_RIGHTS, in order stdin, stdout, stderr).
type request struct {
	Argv []string `json:"argv"`
	Env  []string `json:"env"`
	Cwd  string   `json:"cwd"`
	// Ops are the command's mounts (sandbox.Policy.CommandOps).
	Ops []string `json:"ops"`
}

// reply is what the parent sends back: Started once the command runs,
// then Exit; or Error instead of both.
type reply struct {
	Started bool   `json:"started,omitempty"`
	Exit    *int   `json:"exit,omitempty"`
	Error   string `json:"error,omitempty"`
}

// control is what a client sends while its command runs.
type control struct {
	Signal int `json:"signal"`
}

// maxMessage bounds one message: a request carries a command's argv,
// environment and mounts; a larger one is refused rather than cut.
const maxMessage = 1 << 20

// streams is how many descriptors a request carries.
const streams = 3

// send writes v as one message, with files attached.
func send(c *net.UnixConn, v any, files ...*os.File) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if len(data) > maxMessage {
		return fmt.Errorf("message of %d bytes, more than %d", len(data), maxMessage)
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

// receive reads one message into v and returns the files attached to it
// (the caller closes them). A truncated message or control data is an
// error: nothing half-read is acted on.
func receive(c *net.UnixConn, v any) ([]*os.File, error) {
	buf := make([]byte, maxMessage+1)
	oob := make([]byte, syscall.CmsgSpace(streams*4))
	n, oobn, flags, _, err := c.ReadMsgUnix(buf, oob)
	if err != nil {
		return nil, err
	}
	files, ferr := parseRights(oob[:oobn])
	if flags&(syscall.MSG_TRUNC|syscall.MSG_CTRUNC) != 0 || n > maxMessage {
		closeAll(files)
		return nil, errors.New("message truncated")
	}
	if ferr != nil {
		closeAll(files)
		return nil, ferr
	}
	if n == 0 {
		closeAll(files)
		return nil, net.ErrClosed
	}
	if err := json.Unmarshal(buf[:n], v); err != nil {
		closeAll(files)
		return nil, fmt.Errorf("malformed message: %w", err)
	}
	return files, nil
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
			closeAll(files)
			return nil, err
		}
		for _, fd := range fds {
			syscall.CloseOnExec(fd)
			files = append(files, os.NewFile(uintptr(fd), "stream"))
		}
	}
	return files, nil
}

func closeAll(files []*os.File) {
	for _, f := range files {
		_ = f.Close()
	}
}
