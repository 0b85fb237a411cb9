package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime/debug"
	"sync"

	"github.com/magenta-nvim/magenta/pkg/mcp/mcpwire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Serve answers the host's requests read from in, writing replies and
// events to out, until in ends (the host closed it or went); then it
// stops every session and returns.
func Serve(in io.Reader, out io.Writer) error {
	life, cancel := context.WithCancel(context.Background())
	g := &gateway{out: out, life: life, sessions: map[uint64]*session{}, inflight: map[uint64]context.CancelFunc{}}
	defer cancel()
	defer g.shutdown()
	if err := g.send(mcpwire.Reply{Hello: &mcpwire.Hello{Protocol: mcpwire.Protocol, PID: os.Getpid()}}); err != nil {
		return err
	}
	dec := json.NewDecoder(in)
	for {
		var req mcpwire.Request
		if err := dec.Decode(&req); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("reading the host's request: %w", err)
		}
		g.handle(req)
	}
}

// ServeIfAsked serves on stdio and exits when the environment asks this
// binary to be the gateway (mcpwire.SelfEnv): a test binary's TestMain
// calls it, so tests need no magenta-mcp built.
func ServeIfAsked() {
	if os.Getenv(mcpwire.SelfEnv) != "1" {
		return
	}
	if err := Serve(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "magenta-mcp:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

type gateway struct {
	life context.Context

	outMu sync.Mutex
	out   io.Writer

	mu       sync.Mutex
	closed   bool
	next     uint64
	sessions map[uint64]*session
	inflight map[uint64]context.CancelFunc // by request id, for OpCancel
}

// session is one server's SDK session.
type session struct {
	sdk  *sdk.ClientSession
	cmd  *exec.Cmd // nil for a URL
	tail *stderrTail
}

func (s *session) stop() {
	killGroup(s.cmd)
	_ = s.sdk.Close()
}

func (g *gateway) send(r mcpwire.Reply) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // code is full of <, > and &
	if err := enc.Encode(r); err != nil {
		// Only a result the SDK built could fail to encode: say so.
		buf.Reset()
		_ = enc.Encode(mcpwire.Reply{ID: r.ID, Error: &mcpwire.Error{Message: "the gateway could not encode the answer: " + err.Error()}})
	}
	g.outMu.Lock()
	defer g.outMu.Unlock()
	_, err := g.out.Write(buf.Bytes())
	return err
}

func (g *gateway) handle(req mcpwire.Request) {
	if req.Op == mcpwire.OpCancel {
		g.mu.Lock()
		if cancel, ok := g.inflight[req.Cancels]; ok {
			cancel()
		}
		g.mu.Unlock()
		return
	}
	ctx, cancel := context.WithCancel(g.life)
	g.mu.Lock()
	g.inflight[req.ID] = cancel
	g.mu.Unlock()
	go func() {
		defer func() {
			g.mu.Lock()
			delete(g.inflight, req.ID)
			g.mu.Unlock()
			cancel()
		}()
		reply := g.answer(ctx, req)
		reply.ID = req.ID
		_ = g.send(reply)
	}()
}

// answer runs one request; a panic in the SDK becomes an error answer.
func (g *gateway) answer(ctx context.Context, req mcpwire.Request) (reply mcpwire.Reply) {
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(os.Stderr, "magenta-mcp: panic in %s: %v\n%s", req.Op, p, debug.Stack())
			reply = failed(fmt.Sprintf("the MCP gateway failed (%s): %v", req.Op, p))
		}
	}()
	if req.Op == mcpwire.OpConnect {
		return g.connect(ctx, req.Connect)
	}
	g.mu.Lock()
	s := g.sessions[req.Session]
	if req.Op == mcpwire.OpClose {
		delete(g.sessions, req.Session)
	}
	g.mu.Unlock()
	if s == nil {
		return failed(fmt.Sprintf("no session %d (it ended)", req.Session))
	}
	switch req.Op {
	case mcpwire.OpTools:
		return listTools(ctx, s)
	case mcpwire.OpCall:
		return call(ctx, s, req.Tool, req.Args)
	case mcpwire.OpClose:
		s.stop()
		return mcpwire.Reply{Stderr: s.tail.text()}
	}
	return failed(fmt.Sprintf("unknown request %q", req.Op))
}

func failed(msg string) mcpwire.Reply { return mcpwire.Reply{Error: &mcpwire.Error{Message: msg}} }

func (g *gateway) connect(ctx context.Context, c *mcpwire.Connect) mcpwire.Reply {
	if c == nil {
		return failed(errNoConnect.Error())
	}
	g.mu.Lock()
	g.next++
	id := g.next
	g.mu.Unlock()
	tr, cmd, tail, err := transport(g.life, c)
	if err != nil {
		return failed(err.Error())
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "magenta", Version: c.ClientVersion}, &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			_ = g.send(mcpwire.Reply{Event: mcpwire.EventToolsChanged, Session: id})
		},
	})
	cs, err := client.Connect(ctx, tr, nil)
	tail.started()
	if err != nil {
		killGroup(cmd)
		if cmd != nil && cmd.Process != nil {
			_ = cmd.Wait() // reap it, unless the SDK has
		}
		return mcpwire.Reply{Error: &mcpwire.Error{Message: "could not start: " + err.Error(), Stderr: tail.text()}}
	}
	s := &session{sdk: cs, cmd: cmd, tail: tail}
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		s.stop()
		return failed("the MCP gateway is closing")
	}
	g.sessions[id] = s
	g.mu.Unlock()
	go g.watch(id, s)
	reply := mcpwire.Reply{Session: id}
	if cmd != nil && cmd.Process != nil {
		reply.PID = cmd.Process.Pid
	}
	return reply
}

// watch tells the host when a session ends by itself (the server
// exited or the connection broke), not when the host closed it.
func (g *gateway) watch(id uint64, s *session) {
	err := s.sdk.Wait()
	g.mu.Lock()
	current := g.sessions[id] == s && !g.closed
	if current {
		delete(g.sessions, id)
	}
	g.mu.Unlock()
	if !current {
		return
	}
	s.stop()
	if err == nil {
		err = errors.New("the server closed the connection")
	}
	_ = g.send(mcpwire.Reply{Event: mcpwire.EventEnded, Session: id,
		Error: &mcpwire.Error{Message: "exited: " + err.Error(), Stderr: s.tail.text()}})
}

func listTools(ctx context.Context, s *session) mcpwire.Reply {
	var out []mcpwire.Tool
	for t, err := range s.sdk.Tools(ctx, nil) {
		if err != nil {
			return failed(err.Error())
		}
		schema, err := json.Marshal(t.InputSchema)
		if err != nil {
			schema = nil // the host names the tool as skipped
		}
		out = append(out, mcpwire.Tool{Name: t.Name, Title: t.Title, Description: t.Description, InputSchema: schema})
	}
	return mcpwire.Reply{Tools: out}
}

func call(ctx context.Context, s *session, tool string, args json.RawMessage) mcpwire.Reply {
	res, err := s.sdk.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		var wire *jsonrpc.Error
		return mcpwire.Reply{Error: &mcpwire.Error{Message: err.Error(), Server: errors.As(err, &wire)}}
	}
	data, err := json.Marshal(res)
	if err != nil {
		return failed("the server's result could not be encoded: " + err.Error())
	}
	return mcpwire.Reply{Result: data}
}

// shutdown stops every session: the host is gone.
func (g *gateway) shutdown() {
	g.mu.Lock()
	g.closed = true
	sessions := g.sessions
	g.sessions = map[uint64]*session{}
	for _, cancel := range g.inflight {
		cancel()
	}
	g.mu.Unlock()
	for _, s := range sessions {
		s.stop()
	}
}
