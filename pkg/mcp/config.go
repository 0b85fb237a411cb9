package mcp

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"syscall"
	"time"

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
}

func (c ServerConfig) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return DefaultTimeout
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
func (c ServerConfig) transport() (sdk.Transport, *exec.Cmd, *stderrTail, error) {
	switch {
	case c.Command != "":
		cmd := exec.Command(c.Command, c.Args...)
		cmd.Dir = c.Cwd
		cmd.Env = os.Environ()
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
		return &sdk.StreamableClientTransport{Endpoint: c.URL, HTTPClient: client, MaxRetries: -1}, nil, nil, nil
	}
	return nil, nil, nil, fmt.Errorf("mcpServers.%s: needs a command or a url", c.Name)
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
