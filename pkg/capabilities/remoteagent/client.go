package remoteagent

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"
)

// Errors of a Client; test with errors.Is.
var (
	// ErrClosed: the agent's channel has ended (or the Client was
	// closed); a command handed to it now was not taken.
	ErrClosed = errors.New("the remote agent's channel has ended")
	// ErrNoHello: what came first on the channel was not the agent's
	// hello (a login script that prints, another program, another
	// protocol version).
	ErrNoHello = errors.New("the remote agent did not start")
)

// LostStatus is the wait status of a command whose agent channel ended
// before it did: exit 255, what ssh reports when it failed itself, so
// the caller checks the connection as it does for a command of its own
// channel.
const LostStatus = syscall.WaitStatus(255 << 8)

// LostMessage is the line such a command's stderr ends with.
const LostMessage = "magenta: the connection to the remote agent ended"

// Client is the host's side of one agent: it hands commands to it and
// sorts what comes back. It is safe for concurrent use.
type Client struct {
	w    io.Closer
	out  *frameWriter
	done chan struct{} // closed when the channel ended

	mu     sync.Mutex
	next   uint32
	cmds   map[uint32]*Command
	closed bool
	err    error // why the channel ended
}

// NewClient waits for the agent's hello on r (until ctx ends: the
// caller then kills what runs the agent) and serves the channel from
// then on; w is the agent's stdin. The channel ends when r does.
func NewClient(ctx context.Context, r io.Reader, w io.WriteCloser) (*Client, error) {
	fr := &frameReader{r: r}
	hello := make(chan error, 1)
	go func() {
		f, err := fr.next()
		switch {
		case err != nil:
			hello <- fmt.Errorf("%w: %v", ErrNoHello, err)
		case f.kind != kindHello || string(f.payload) != Version:
			hello <- fmt.Errorf("%w: it did not answer with %q (does a login script print on non-interactive sessions?)", ErrNoHello, Version)
		default:
			hello <- nil
		}
	}()
	select {
	case err := <-hello:
		if err != nil {
			return nil, err
		}
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: no hello: %w", ErrNoHello, ctx.Err())
	}
	c := &Client{w: w, out: &frameWriter{w: w}, done: make(chan struct{}), cmds: map[uint32]*Command{}}
	go c.serve(fr)
	return c, nil
}

// Done is closed when the channel has ended.
func (c *Client) Done() <-chan struct{} { return c.done }

// Err is why the channel ended (nil while it serves).
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close ends the channel: the agent ends what it runs and exits.
func (c *Client) Close() error {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	return c.w.Close()
}

// Start hands req to the agent. The command's output is written to
// stdout and stderr (duplicated: the caller may close its own), which
// are closed once it ended. ErrClosed means nothing of it ran.
func (c *Client) Start(req Request, stdout, stderr *os.File) (*Command, error) {
	out, err := dup(stdout)
	if err != nil {
		return nil, err
	}
	errf, err := dup(stderr)
	if err != nil {
		out.Close()
		return nil, err
	}
	cmd, err := c.start(req, out, errf, true)
	if err != nil {
		closeFiles(out, errf)
		return nil, err
	}
	return cmd, nil
}

// StartTo is Start writing the output to stdout and stderr, which it
// does not close (a buffer). ErrClosed means nothing of it ran.
func (c *Client) StartTo(req Request, stdout, stderr io.Writer) (*Command, error) {
	if stdout == nil || stderr == nil {
		return nil, errors.New("remote agent: a command's output needs a writer")
	}
	return c.start(req, stdout, stderr, false)
}

// start is StartTo; owned says out and err are files to close at the end.
func (c *Client) start(req Request, out, errf io.Writer, owned bool) (*Command, error) {
	payload, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	cmd := &Command{c: c, out: out, err: errf, owned: owned, chunks: make(chan chunk, 64), exited: make(chan struct{})}
	c.mu.Lock()
	if c.closed || c.err != nil {
		c.mu.Unlock()
		return nil, ErrClosed
	}
	c.next++
	cmd.id = c.next
	c.cmds[cmd.id] = cmd
	c.mu.Unlock()
	if err := c.out.send(kindStart, cmd.id, payload); err != nil {
		// A failed write to a pipe wrote nothing: not taken. Its writer
		// never started, so nothing reached the caller's files (serve,
		// seeing the channel end, may have queued its lost line).
		c.mu.Lock()
		delete(c.cmds, cmd.id)
		c.mu.Unlock()
		cmd.end(0, false, false)
		return nil, fmt.Errorf("%w: %v", ErrClosed, err)
	}
	go cmd.write()
	return cmd, nil
}

// serve sorts the agent's frames to their commands until the channel
// ends; then every command still running ends with LostStatus.
func (c *Client) serve(fr *frameReader) {
	var err error
	for {
		var f frame
		if f, err = fr.next(); err != nil {
			break
		}
		c.mu.Lock()
		cmd := c.cmds[f.id]
		if f.kind == kindExit {
			delete(c.cmds, f.id)
		}
		c.mu.Unlock()
		if cmd == nil {
			continue // a command Start gave up on
		}
		switch f.kind {
		case kindStdout, kindStderr:
			cmd.chunks <- chunk{stderr: f.kind == kindStderr, data: append([]byte(nil), f.payload...)}
		case kindExit:
			status := LostStatus
			if len(f.payload) == 4 {
				status = syscall.WaitStatus(binary.BigEndian.Uint32(f.payload))
			}
			cmd.end(status, false, false)
		}
	}
	if errors.Is(err, io.EOF) {
		err = ErrClosed
	}
	c.mu.Lock()
	c.err = err
	left := c.cmds
	c.cmds = map[uint32]*Command{}
	c.mu.Unlock()
	for _, cmd := range left {
		cmd.end(LostStatus, true, true)
	}
	close(c.done)
}

// chunk is output of one command.
type chunk struct {
	stderr bool
	data   []byte
}

// Command is one command the agent runs; it implements
// localshell.Started.
type Command struct {
	c        *Client
	id       uint32
	out, err io.Writer
	owned    bool // out and err are files Start made: closed at the end
	chunks   chan chunk
	exited   chan struct{}

	// ending guards the end of chunks: serve ends a command when its exit
	// comes or the channel ends, Start when its request was not sent.
	ending sync.Mutex
	ended  bool
	status syscall.WaitStatus
	lost   bool
}

// end records the command's status and closes its output, once; lost
// says the channel ended first, and note adds LostMessage to its stderr.
func (cmd *Command) end(status syscall.WaitStatus, lost, note bool) {
	cmd.ending.Lock()
	defer cmd.ending.Unlock()
	if cmd.ended {
		return
	}
	cmd.ended, cmd.status, cmd.lost = true, status, lost
	if note {
		cmd.chunks <- chunk{stderr: true, data: []byte(LostMessage + "\n")}
	}
	close(cmd.chunks)
}

// write copies the command's output to its files, in order, on a
// goroutine of its own. A command whose reader falls 64 reads behind
// holds up the channel (serve waits for room) until it catches up:
// localshell reads all the time, and stops only to close the pipe,
// after which writes fail at once.
func (cmd *Command) write() {
	for ch := range cmd.chunks {
		f := cmd.out
		if ch.stderr {
			f = cmd.err
		}
		_, _ = f.Write(ch.data) // a reader gone: the output is dropped
	}
	if cmd.owned {
		closeFiles(cmd.out.(*os.File), cmd.err.(*os.File))
	}
	close(cmd.exited)
}

// Wait waits for the command and returns its status (LostStatus when
// the channel ended first), once all its output was written.
func (cmd *Command) Wait() (syscall.WaitStatus, error) {
	<-cmd.exited
	return cmd.status, nil
}

// Lost reports whether the channel ended before the command (valid
// after Wait).
func (cmd *Command) Lost() bool {
	<-cmd.exited
	return cmd.lost
}

// Signal sends sig to every process of the command.
func (cmd *Command) Signal(sig syscall.Signal) {
	_ = cmd.c.out.send(kindSignal, cmd.id, []byte{byte(sig)})
}

// Kill ends the command and everything it started.
func (cmd *Command) Kill() { cmd.Signal(syscall.SIGKILL) }

// dup returns a copy of f the Client owns.
func dup(f *os.File) (*os.File, error) {
	if f == nil {
		return nil, errors.New("remote agent: a command's output needs a file")
	}
	// Through Control, not Fd: Fd would make the caller's file blocking.
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, fmt.Errorf("remote agent: %w", err)
	}
	fd, derr := -1, error(nil)
	if err := rc.Control(func(raw uintptr) { fd, derr = syscall.Dup(int(raw)) }); err != nil {
		return nil, fmt.Errorf("remote agent: %w", err)
	}
	if derr != nil {
		return nil, fmt.Errorf("remote agent: %w", derr)
	}
	syscall.CloseOnExec(fd)
	return os.NewFile(uintptr(fd), f.Name()), nil
}
