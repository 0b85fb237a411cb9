package gateway

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"syscall"
	"time"

	"github.com/magenta-nvim/magenta/pkg/mcp/mcpwire"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// transport builds the SDK transport; for a command it also returns the
// process, whose group stop kills, and its stderr's tail.
//
// life is how long a connection may live (the gateway's); the context
// Connect gets bounds only the start.
func transport(life context.Context, c *mcpwire.Connect) (sdk.Transport, *exec.Cmd, *stderrTail, error) {
	switch {
	case c.Command != "":
		cmd := exec.Command(c.Command, c.Args...)
		cmd.Dir = c.Dir
		cmd.Env = c.Env
		// Its own process group: stopping the server kills whatever it
		// started too (npx → node), so nothing outlives the host. Killed
		// by the kernel if the gateway dies without stopping it (what it
		// started then sees its stdin end).
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		tail, err := newStderrTail()
		if err != nil {
			return nil, nil, nil, err
		}
		cmd.Stderr = tail.w
		return &sdk.CommandTransport{Command: cmd, TerminateDuration: time.Second}, cmd, tail, nil
	case c.URL != "":
		client := &http.Client{Transport: headerTransport{headers: c.Headers, inner: http.DefaultTransport}}
		if c.SSE {
			return sseTransport{inner: &sdk.SSEClientTransport{Endpoint: c.URL, HTTPClient: client}, life: life}, nil, nil, nil
		}
		return &sdk.StreamableClientTransport{Endpoint: c.URL, HTTPClient: client, MaxRetries: -1}, nil, nil, nil
	}
	return nil, nil, nil, fmt.Errorf("mcpServers.%s: needs a command or a url", c.Name)
}

func killGroup(cmd *exec.Cmd) {
	if cmd == nil || cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}

// headerTransport adds the configured headers (an API token) to every
// request.
type headerTransport struct {
	headers map[string]string
	inner   http.RoundTripper
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 {
		r = r.Clone(r.Context())
		for k, v := range t.headers {
			r.Header.Set(k, v)
		}
	}
	return t.inner.RoundTrip(r)
}

// sseTransport keeps an SSE connection open after the start: the SDK's
// SSE client ties its event stream to the context Connect gets, which
// for a start is cancelled once the server is ready. The start's
// context still aborts a connection that is not made in time.
type sseTransport struct {
	inner *sdk.SSEClientTransport
	life  context.Context
}

func (t sseTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	conn, cancel := context.WithCancel(t.life)
	stop := context.AfterFunc(ctx, cancel)
	c, err := t.inner.Connect(conn)
	if !stop() && err == nil { // the start ended while connecting
		_ = c.Close()
		err = ctx.Err()
	}
	if err != nil {
		cancel()
		return nil, err
	}
	return &sseConn{Connection: c, cancel: cancel}, nil
}

// sseConn releases the connection's context when it is closed.
type sseConn struct {
	sdk.Connection
	cancel context.CancelFunc
}

func (c *sseConn) Close() error {
	err := c.Connection.Close()
	c.cancel()
	return err
}

// errNoConnect is a connect request without its Connect.
var errNoConnect = errors.New("connect without a server")
