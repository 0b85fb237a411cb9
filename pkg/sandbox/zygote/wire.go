package zygote

import (
	"errors"
	"net"
	"os"

	"github.com/magenta-nvim/magenta/pkg/fdmsg"
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
	return fdmsg.Send(c, v, maxMessage, files...)
}

// receive reads one message into v and returns the files attached to it
// (the caller closes them): at most the streams of a request.
func receive(c *net.UnixConn, v any) ([]*os.File, error) {
	return fdmsg.Receive(c, v, maxMessage, streams)
}

func closeAll(files []*os.File) { fdmsg.CloseAll(files) }
