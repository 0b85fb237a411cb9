package mcp

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/magenta-nvim/magenta/pkg/mcp/mcpwire"
	"github.com/magenta-nvim/magenta/pkg/sandbox"
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

// connect is what the gateway needs to start the server: the command
// with its whole environment (decided here: the gateway knows nothing of
// sources), or the URL with its headers.
func (c ServerConfig) connect(clientVersion string) (mcpwire.Connect, error) {
	conn := mcpwire.Connect{Name: c.Name, ClientVersion: clientVersion}
	switch {
	case c.Problem != "":
		return conn, errors.New(c.Problem)
	case c.Command != "":
		conn.Command, conn.Args, conn.Dir = c.Command, c.Args, c.Cwd
		conn.Env = c.environ(os.Environ())
		for k, v := range c.Env {
			conn.Env = append(conn.Env, k+"="+v)
		}
		return conn, nil
	case c.URL != "":
		conn.URL, conn.Headers, conn.SSE = c.URL, c.Headers, c.SSE
		return conn, nil
	}
	return conn, fmt.Errorf("mcpServers.%s: needs a command or a url", c.Name)
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
