package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/magenta-nvim/magenta/pkg/sandbox"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultTimeout bounds one tool call unless the server's timeout option
// says otherwise.
const DefaultTimeout = 60 * time.Second

// ServerConfig is one entry of mcpServers: a command to run (stdio) or a
// URL (streamable HTTP).
type ServerConfig struct {
	Name    string
	Command string
	Args    []string
	Env     map[string]string
	Cwd     string
	URL     string
	Headers map[string]string
	// Allow names the tools that run without asking; "*" is every tool.
	Allow []string
	// Timeout bounds one call (DefaultTimeout when zero).
	Timeout time.Duration
	// SSE speaks the older HTTP+SSE transport to URL instead of
	// streamable HTTP (a project file's "type": "sse").
	SSE bool
	// Source says where the server was configured: SourceSetup or
	// SourceProject.
	Source string
	// Problem, when set, is why the server cannot start (a variable its
	// project file names is not set); starting it fails with it.
	Problem string
	// Trusted is, for a project server, the digest of what it runs as
	// the user trusted it; Options.Verify checks it before every start.
	Trusted string
}

// Where a server was configured.
const (
	SourceSetup   = "setup"
	SourceProject = ".mcp.json"
)

func (c ServerConfig) source() string {
	if c.Source == "" {
		return SourceSetup
	}
	return c.Source
}

func (c ServerConfig) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return DefaultTimeout
}

// transportName is how :Magenta mcp names the transport.
func (c ServerConfig) transportName() string {
	switch {
	case c.URL != "" && c.SSE:
		return "sse"
	case c.URL != "":
		return "http"
	}
	return "stdio"
}

func (c ServerConfig) allows(tool string) bool {
	for _, a := range c.Allow {
		if a == "*" || a == tool {
			return true
		}
	}
	return false
}

// transport builds the SDK transport; for a command it also returns the
// process, whose group the caller kills on stop, and its stderr's tail.
//
// life is how long a connection may live (the manager's); the context
// Connect gets bounds only the start.
func (c ServerConfig) transport(life context.Context) (sdk.Transport, *exec.Cmd, *stderrTail, error) {
	switch {
	case c.Problem != "":
		return nil, nil, nil, errors.New(c.Problem)
	case c.Command != "":
		cmd := exec.Command(c.Command, c.Args...)
		cmd.Dir = c.Cwd
		cmd.Env = c.environ(os.Environ())
		for k, v := range c.Env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		// Its own process group: stopping the server kills whatever it
		// started too (npx → node), so nothing outlives the host.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
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

// environ is the environment a stdio server starts with (before its own
// Env): setup()'s servers get the editor's whole environment; a project
// file's get only the sandbox's allowlist (PATH, HOME, locale,
// toolchains — no API key, no NVIM socket), the file naming whatever
// else they need in "env".
func (c ServerConfig) environ(env []string) []string {
	if c.source() == SourceProject {
		return sandbox.Policy{}.Environ(env)
	}
	return env
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
