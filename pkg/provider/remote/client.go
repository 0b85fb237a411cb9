package remote

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/magenta-nvim/magenta/pkg/childproc"
	"github.com/magenta-nvim/magenta/pkg/provider"
)

// BinaryName is the provider process's executable, built beside the host.
const BinaryName = "magenta-provider"

// IdleExit is how long the provider process is kept without a stream
// before the host lets it go (it starts again, in a few milliseconds, at
// the next request): a session that chatted once gives its memory back.
const IdleExit = 10 * time.Minute

// helloTimeout bounds the wait for a starting process's greeting.
const helloTimeout = 10 * time.Second

// repliesBuffered is how many replies of one stream may wait for its
// Stream to take them before the reader waits (for that stream only
// while it is alive).
const repliesBuffered = 64

// DefaultPath is BinaryName in the directory of the running executable
// (bin/ of the checkout, beside magenta-host).
func DefaultPath() string { return childproc.Beside(BinaryName) }

// Client owns the provider process: it starts it at the first stream,
// shares it among all streams, starts it again after it ended, and lets
// it go after IdleExit without streams. Its Adapter is the host's
// provider.AdapterFunc.
type Client struct {
	path     string
	idleExit time.Duration

	mu     sync.Mutex
	proc   *process // nil: not running
	nextID uint64
	closed bool
}

// NewClient returns a Client of the executable at path (DefaultPath in
// the host) that lets the process go after idleExit (0: IdleExit).
func NewClient(path string, idleExit time.Duration) *Client {
	if idleExit <= 0 {
		idleExit = IdleExit
	}
	return &Client{path: path, idleExit: idleExit}
}

// Adapter returns the provider of spec served by the process. It fails
// at once when the executable is missing, naming what to build.
func (c *Client) Adapter(spec provider.Spec) (provider.Provider, error) {
	if _, err := os.Stat(c.path); err != nil {
		return nil, fmt.Errorf("the provider process %s is missing (it is built beside magenta-host: run `make` in the plugin's directory, or `:Lazy build magenta` under lazy.nvim — a first build can outlast a plugin manager's time limit): %w", c.path, err)
	}
	return &remoteProvider{client: c, spec: spec}, nil
}

// Warm starts the process in the background when none runs, so the first
// request does not wait for it (the host calls it when the sidebar
// opens: a request is likely soon). It never blocks. A warm process is
// let go after idleExit without streams, as one after its last stream;
// one that fails to start is only logged: the first stream starts it
// again and reports the error.
func (c *Client) Warm() {
	if _, err := os.Stat(c.path); err != nil {
		return // Adapter names what to build when a request comes
	}
	go func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.closed || c.proc != nil {
			return
		}
		p, err := c.start(context.Background())
		if err != nil {
			slog.Warn("provider process: could not start it ahead of the first request", "err", err)
			return
		}
		c.proc = p
		c.idleAfter(p)
	}()
}

// PID is the running process's id, 0 when none runs (for tests and
// :checkhealth).
func (c *Client) PID() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.proc == nil {
		return 0
	}
	return c.proc.cmd.Process.Pid
}

// Close ends the process (EOF on its stdin; killed after a grace) and
// refuses further streams.
func (c *Client) Close() {
	c.mu.Lock()
	p := c.proc
	c.proc, c.closed = nil, true
	c.mu.Unlock()
	if p != nil {
		p.stop(2 * time.Second)
	}
}

// process is one run of the executable.
type process struct {
	cmd     *exec.Cmd
	stderr  *childproc.StderrLog
	exited  chan struct{} // closed when the reader saw the end and Wait returned
	writeMu sync.Mutex
	stdin   io.WriteCloser
	// streams and idle are guarded by Client.mu.
	streams map[uint64]*pending
	idle    *time.Timer
}

// pending is one stream waiting for replies. The process's reader is the
// only sender on replies and the only closer; err is set before the close.
type pending struct {
	replies chan reply
	done    chan struct{} // closed when Stream returns
	err     error
}

type remoteProvider struct {
	client *Client
	spec   provider.Spec
}

// Stream implements provider.Provider.
func (r *remoteProvider) Stream(ctx context.Context, req provider.Request, emit func(provider.Event)) (*provider.Response, error) {
	c := r.client
	p, id, pend, err := c.open(ctx)
	if err != nil {
		return nil, err
	}
	defer c.forget(p, id, pend)
	line, err := marshalCall(call{ID: id, Spec: &r.spec, Request: &req})
	if err != nil {
		return nil, err
	}
	if err := p.write(line); err != nil {
		return nil, p.deadError(err)
	}
	for {
		select {
		case rep, ok := <-pend.replies:
			switch {
			case !ok:
				return nil, pend.err
			case rep.Event != nil:
				ev, err := rep.Event.decode()
				if err != nil {
					r.cancel(p, id)
					return nil, &provider.Error{Kind: provider.ErrProtocol, Message: "the provider process sent " + err.Error()}
				}
				emit(ev)
			case rep.Response != nil:
				return rep.Response, nil
			case rep.Error != nil:
				return nil, rep.Error.decode()
			}
		case <-ctx.Done():
			r.cancel(p, id)
			return nil, fmt.Errorf("provider: %w", ctx.Err())
		}
	}
}

func (r *remoteProvider) cancel(p *process, id uint64) {
	if line, err := marshalCall(call{ID: id, Cancel: true}); err == nil {
		_ = p.write(line)
	}
}

// open returns the running process, starting it when none runs, with a
// new stream registered on it.
func (c *Client) open(ctx context.Context) (*process, uint64, *pending, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, 0, nil, errors.New("the host is shutting down")
	}
	if c.proc == nil {
		p, err := c.start(ctx)
		if err != nil {
			return nil, 0, nil, err
		}
		c.proc = p
	}
	p := c.proc
	if p.idle != nil {
		p.idle.Stop()
		p.idle = nil
	}
	c.nextID++
	pend := &pending{replies: make(chan reply, repliesBuffered), done: make(chan struct{})}
	p.streams[c.nextID] = pend
	return p, c.nextID, pend, nil
}

// forget unregisters a stream that has returned, and lets the process go
// after idleExit when it was the last.
func (c *Client) forget(p *process, id uint64, pend *pending) {
	close(pend.done)
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(p.streams, id)
	if len(p.streams) > 0 || c.proc != p {
		return
	}
	c.idleAfter(p)
}

// idleAfter lets p go after idleExit unless a stream comes first. Called
// with c.mu held.
func (c *Client) idleAfter(p *process) {
	p.idle = time.AfterFunc(c.idleExit, func() {
		c.mu.Lock()
		if c.proc != p || len(p.streams) > 0 || p.idle == nil {
			c.mu.Unlock()
			return
		}
		c.proc = nil
		c.mu.Unlock()
		slog.Info("provider process idle: letting it go", "pid", p.cmd.Process.Pid, "after", c.idleExit)
		p.stop(2 * time.Second)
	})
}

// start runs the executable and waits for its greeting. Called with c.mu
// held: streams that arrive meanwhile wait for the same process.
func (c *Client) start(ctx context.Context) (*process, error) {
	cmd := exec.Command(c.path)
	cmd.SysProcAttr = sysProcAttr()
	// A child of the process holding its stderr open must not keep Wait
	// (and so the failure of every stream) waiting.
	cmd.WaitDelay = time.Second
	p := &process{cmd: cmd, stderr: &childproc.StderrLog{Name: "provider process"}, exited: make(chan struct{}), streams: map[uint64]*pending{}}
	cmd.Stderr = p.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("cannot start the provider process %s: %w", c.path, err)
	}
	p.stdin = stdin
	dec := json.NewDecoder(bufio.NewReaderSize(stdout, 64<<10))
	var r reply
	err = childproc.AwaitGreeting(ctx, dec, helloTimeout, &r, func() error {
		switch {
		case r.Hello == nil:
			return errors.New("its first message was not a greeting")
		case r.Hello.Protocol != Protocol:
			return fmt.Errorf("it speaks protocol %d and this host %d: they were built from different versions; run `make build` again", r.Hello.Protocol, Protocol)
		}
		return nil
	})
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("the provider process %s failed to start: %w%s", c.path, err, p.stderr.Tail())
	}
	slog.Info("provider process started", "pid", cmd.Process.Pid)
	go c.read(p, dec)
	return p, nil
}

// read hands each reply to its stream until the process's stdout ends,
// then fails the streams still waiting.
func (c *Client) read(p *process, dec *json.Decoder) {
	var readErr error
	for {
		var r reply
		if err := dec.Decode(&r); err != nil {
			readErr = err
			break
		}
		c.mu.Lock()
		pend := p.streams[r.ID]
		c.mu.Unlock()
		if pend == nil {
			continue // a stream that has returned (cancelled)
		}
		select {
		case pend.replies <- r:
		case <-pend.done:
		}
	}
	waitErr := p.cmd.Wait()
	close(p.exited)
	c.mu.Lock()
	if c.proc == p {
		c.proc = nil
	}
	streams := p.streams
	p.streams = map[uint64]*pending{}
	c.mu.Unlock()
	if len(streams) == 0 {
		return
	}
	why := waitErr
	if why == nil && !errors.Is(readErr, io.EOF) {
		why = fmt.Errorf("unreadable reply: %w", readErr)
	}
	err := p.deadError(why)
	slog.Warn("provider process ended with streams open", "pid", p.cmd.Process.Pid, "err", err)
	for _, pend := range streams {
		pend.err = err
		close(pend.replies)
	}
}

// deadError is the error of a stream whose process ended: a connection
// failure, which WithRetry retries on a new process.
func (p *process) deadError(why error) error {
	msg := "the provider process ended"
	if why != nil {
		msg += " (" + why.Error() + ")"
	}
	return &provider.Error{Kind: provider.ErrConnection, Message: msg + p.stderr.Tail(), Retryable: true}
}

func (p *process) write(line []byte) error {
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	_, err := p.stdin.Write(line)
	return err
}

// stop closes stdin, which ends the process's Serve; it is killed when it
// has not exited after grace.
func (p *process) stop(grace time.Duration) {
	p.writeMu.Lock()
	_ = p.stdin.Close()
	p.writeMu.Unlock()
	select {
	case <-p.exited:
	case <-time.After(grace):
		_ = p.cmd.Process.Kill()
	}
}
