package mcp

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
	"syscall"
	"time"

	"github.com/magenta-nvim/magenta/pkg/childproc"
	"github.com/magenta-nvim/magenta/pkg/mcp/mcpwire"
)

// GatewayBinary is the MCP gateway's file name (cmd/magenta-mcp); it is
// built beside magenta-host.
const GatewayBinary = "magenta-mcp"

// gatewayHelloTimeout bounds the gateway's start, up to its greeting.
const gatewayHelloTimeout = 10 * time.Second

// gatewayCommand makes the command that runs a gateway.
var gatewayCommand = defaultGatewayCommand

// GatewayPath is where the host looks for the gateway: beside itself.
func GatewayPath() string { return childproc.Beside(GatewayBinary) }

func defaultGatewayCommand() (*exec.Cmd, error) {
	path := GatewayPath()
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("the MCP gateway %s is missing (it is built beside magenta-host: run `make` in the plugin's directory, or `:Lazy build magenta` under lazy.nvim): %w", path, err)
	}
	return exec.Command(path), nil
}

// UseThisBinaryAsGateway makes every manager run the running binary as
// its gateway, with mcpwire.SelfEnv set: for tests, whose TestMain calls
// gateway.ServeIfAsked first.
func UseThisBinaryAsGateway() {
	gatewayCommand = func() (*exec.Cmd, error) {
		exe, err := os.Executable()
		if err != nil {
			return nil, err
		}
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), mcpwire.SelfEnv+"=1")
		return cmd, nil
	}
}

// gatewayClient starts the gateway at the first connect, shares it among
// a manager's servers and starts a new one after it died (its sessions
// end then, so their servers restart as after a crash).
type gatewayClient struct {
	mu     sync.Mutex
	proc   *gatewayProc
	closed bool
}

// connect starts a server through the gateway.
func (c *gatewayClient) connect(ctx context.Context, conn mcpwire.Connect, onToolsChanged func()) (*remoteSession, error) {
	p, err := c.running(ctx)
	if err != nil {
		return nil, err
	}
	r, err := p.request(ctx, mcpwire.Request{Op: mcpwire.OpConnect, Connect: &conn})
	if err != nil {
		return nil, err
	}
	if r.Error != nil {
		return nil, errors.New(mcpwire.Explain(r.Error.Message, r.Error.Stderr))
	}
	return p.adopt(r.Session, r.PID, onToolsChanged), nil
}

// running returns the gateway, starting one when none runs.
func (c *gatewayClient) running(ctx context.Context) (*gatewayProc, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, errors.New("the MCP manager is closed")
	}
	if c.proc != nil {
		select {
		case <-c.proc.exited:
		default:
			return c.proc, nil
		}
	}
	p, err := startGateway(ctx)
	if err != nil {
		return nil, err
	}
	c.proc = p
	return p, nil
}

// close ends the gateway (its stdin's EOF): it kills every server.
func (c *gatewayClient) close() {
	c.mu.Lock()
	c.closed = true
	p := c.proc
	c.mu.Unlock()
	if p != nil {
		p.close()
	}
}

// gatewayProc is one running gateway process.
type gatewayProc struct {
	cmd     *exec.Cmd
	stderr  *childproc.StderrLog
	exited  chan struct{}
	writeMu sync.Mutex
	stdin   io.WriteCloser

	mu       sync.Mutex
	nextID   uint64
	pending  map[uint64]*pendingRequest
	sessions map[uint64]*remoteSession
	// endedEarly holds sessions whose end arrived before their connect's
	// answer was taken (a server exiting at once).
	endedEarly map[uint64]string
	err        error // why it ended, once exited is closed
}

type pendingRequest struct {
	op        string
	reply     chan mcpwire.Reply
	abandoned bool // its caller gave up: a session it made is closed
}

func startGateway(ctx context.Context) (*gatewayProc, error) {
	cmd, err := gatewayCommand()
	if err != nil {
		return nil, err
	}
	// Killed with the host even by SIGKILL; it also ends at EOF.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	cmd.WaitDelay = time.Second
	p := &gatewayProc{cmd: cmd, stderr: &childproc.StderrLog{Name: "mcp gateway"}, exited: make(chan struct{}),
		pending: map[uint64]*pendingRequest{}, sessions: map[uint64]*remoteSession{}, endedEarly: map[uint64]string{}}
	cmd.Stderr = p.stderr
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("cannot start the MCP gateway %s: %w", cmd.Path, err)
	}
	dec := json.NewDecoder(bufio.NewReaderSize(stdout, 64<<10))
	var r mcpwire.Reply
	err = childproc.AwaitGreeting(ctx, dec, gatewayHelloTimeout, &r, func() error {
		switch {
		case r.Hello == nil:
			return errors.New("its first message was not a greeting")
		case r.Hello.Protocol != mcpwire.Protocol:
			return fmt.Errorf("it speaks protocol %d and this host %d: they were built from different versions; run `make build` again", r.Hello.Protocol, mcpwire.Protocol)
		}
		return nil
	})
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("the MCP gateway %s failed to start: %w%s", cmd.Path, err, p.stderr.Tail())
	}
	slog.Info("mcp gateway started", "pid", cmd.Process.Pid)
	go p.read(dec)
	return p, nil
}

// read routes replies to their requests and events to their sessions
// until the gateway's stdout ends; then everything waiting fails.
func (p *gatewayProc) read(dec *json.Decoder) {
	var readErr error
	for {
		var r mcpwire.Reply
		if err := dec.Decode(&r); err != nil {
			if !errors.Is(err, io.EOF) {
				readErr = err
			}
			break
		}
		if r.Event != "" {
			p.event(r)
			continue
		}
		p.mu.Lock()
		req := p.pending[r.ID]
		delete(p.pending, r.ID)
		p.mu.Unlock()
		switch {
		case req == nil:
		case req.abandoned:
			if req.op == mcpwire.OpConnect && r.Session != 0 {
				go p.closeSession(r.Session) // made for nobody
			}
		default:
			req.reply <- r
		}
	}
	_ = p.stdin.Close()
	waitErr := p.cmd.Wait()
	err := errors.New("the MCP gateway exited")
	switch {
	case readErr != nil:
		err = fmt.Errorf("the MCP gateway sent garbage (%v)", readErr)
	case waitErr != nil:
		err = fmt.Errorf("the MCP gateway exited (%v)", waitErr)
	}
	err = fmt.Errorf("%w%s", err, p.stderr.Tail())
	p.mu.Lock()
	p.err = err
	sessions := p.sessions
	p.sessions = map[uint64]*remoteSession{}
	p.mu.Unlock()
	close(p.exited)
	for _, s := range sessions {
		s.end(err.Error())
	}
}

func (p *gatewayProc) event(r mcpwire.Reply) {
	p.mu.Lock()
	s := p.sessions[r.Session]
	if r.Event == mcpwire.EventEnded {
		delete(p.sessions, r.Session)
		if s == nil && r.Error != nil {
			p.endedEarly[r.Session] = mcpwire.Explain(r.Error.Message, r.Error.Stderr)
		}
	}
	p.mu.Unlock()
	if s == nil {
		return
	}
	switch r.Event {
	case mcpwire.EventToolsChanged:
		if s.onToolsChanged != nil {
			s.onToolsChanged()
		}
	case mcpwire.EventEnded:
		msg := "exited"
		if r.Error != nil {
			msg = mcpwire.Explain(r.Error.Message, r.Error.Stderr)
		}
		s.end(msg)
	}
}

// adopt makes the host's side of a session the gateway made.
func (p *gatewayProc) adopt(id uint64, pid int, onToolsChanged func()) *remoteSession {
	s := &remoteSession{p: p, id: id, pid: pid, onToolsChanged: onToolsChanged, ended: make(chan struct{})}
	p.mu.Lock()
	early, endedEarly := p.endedEarly[id]
	delete(p.endedEarly, id)
	if !endedEarly && p.err == nil {
		p.sessions[id] = s
	}
	gone := p.err
	p.mu.Unlock()
	switch {
	case endedEarly:
		s.end(early)
	case gone != nil:
		s.end(gone.Error())
	}
	return s
}

// request sends req and waits for its answer, or for ctx: then the
// gateway is told to cancel it.
func (p *gatewayProc) request(ctx context.Context, req mcpwire.Request) (mcpwire.Reply, error) {
	pr := &pendingRequest{op: req.Op, reply: make(chan mcpwire.Reply, 1)}
	p.mu.Lock()
	if p.err != nil {
		err := p.err
		p.mu.Unlock()
		return mcpwire.Reply{}, err
	}
	p.nextID++
	req.ID = p.nextID
	p.pending[req.ID] = pr
	p.mu.Unlock()
	if err := p.send(req); err != nil {
		p.mu.Lock()
		delete(p.pending, req.ID)
		p.mu.Unlock()
		return mcpwire.Reply{}, err
	}
	select {
	case r := <-pr.reply:
		return r, nil
	case <-ctx.Done():
		p.mu.Lock()
		pr.abandoned = true
		p.mu.Unlock()
		_ = p.send(mcpwire.Request{Op: mcpwire.OpCancel, Cancels: req.ID})
		return mcpwire.Reply{}, ctx.Err()
	case <-p.exited:
		select {
		case r := <-pr.reply:
			return r, nil
		default:
		}
		return mcpwire.Reply{}, p.err
	}
}

func (p *gatewayProc) send(req mcpwire.Request) error {
	line, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("could not encode the request for the MCP gateway: %w", err)
	}
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	if _, err := p.stdin.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("the MCP gateway is gone: %w", err)
	}
	return nil
}

// closeSession stops a session and returns its server's stderr tail.
func (p *gatewayProc) closeSession(id uint64) string {
	p.mu.Lock()
	delete(p.sessions, id)
	p.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	r, err := p.request(ctx, mcpwire.Request{Op: mcpwire.OpClose, Session: id})
	if err != nil {
		return ""
	}
	return r.Stderr
}

// close ends the gateway: EOF on its stdin, then, if it lingers, a kill.
func (p *gatewayProc) close() {
	_ = p.stdin.Close()
	select {
	case <-p.exited:
	case <-time.After(2 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
}

// remoteSession is the host's side of a server's session in the gateway.
type remoteSession struct {
	p              *gatewayProc
	id             uint64
	pid            int
	onToolsChanged func()

	endOnce sync.Once
	ended   chan struct{}
	endMsg  string
}

func (s *remoteSession) end(msg string) {
	s.endOnce.Do(func() {
		s.endMsg = msg
		close(s.ended)
	})
}

// wait returns when the session ended by itself, with why.
func (s *remoteSession) wait() error {
	<-s.ended
	return errors.New(s.endMsg)
}

// tools lists the server's tools.
func (s *remoteSession) tools(ctx context.Context) ([]mcpwire.Tool, error) {
	r, err := s.p.request(ctx, mcpwire.Request{Op: mcpwire.OpTools, Session: s.id})
	if err != nil {
		return nil, err
	}
	if r.Error != nil {
		return nil, errors.New(r.Error.Message)
	}
	return r.Tools, nil
}

// callError is a failed call: Server says the server answered with an
// error (the connection is good); otherwise the connection is gone.
type callError struct {
	msg    string
	server bool
}

func (e *callError) Error() string { return e.msg }

// call calls a tool; the result is MCP's CallToolResult as JSON.
func (s *remoteSession) call(ctx context.Context, tool string, args json.RawMessage) (json.RawMessage, error) {
	r, err := s.p.request(ctx, mcpwire.Request{Op: mcpwire.OpCall, Session: s.id, Tool: tool, Args: args})
	if err != nil {
		return nil, err
	}
	if r.Error != nil {
		return nil, &callError{msg: r.Error.Message, server: r.Error.Server}
	}
	return r.Result, nil
}

// close stops the session (killing a stdio server's process group) and
// returns the end of the server's stderr.
func (s *remoteSession) close() string {
	s.end("closed")
	return s.p.closeSession(s.id)
}
