package config

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

// MCPServer is one entry of mcpServers: a command speaking MCP on its
// stdin and stdout, or the URL of a streamable-HTTP server.
type MCPServer struct {
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Cwd     string            `json:"cwd,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// Allow names the server's tools that run without asking; "*" is
	// every tool.
	Allow []string `json:"allow,omitempty"`
	// Timeout bounds one tool call, in seconds (0: the default).
	Timeout float64 `json:"timeout,omitempty"`
}

// MaxMCPServerName bounds a server's name: it goes into tool names
// (mcp__<server>__<tool>), which providers restrict.
const MaxMCPServerName = 40

// NameChars reports whether s is 1 to max ASCII letters, digits, '_'
// and '-': the characters providers accept in tool names, and those of
// saved thread ids. A loop, not a regexp: `{1,64}` compiles into a
// program of 64 copies at every start.
func NameChars(s string, max int) bool {
	if s == "" || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// ReadMCPProjectFile reports whether the workspace's .mcp.json may be
// read (asking the user before trusting it): the default.
func (o Options) ReadMCPProjectFile() bool {
	return o.MCPProjectFile == nil || *o.MCPProjectFile
}

// ValidMCPServerName reports whether name may name a server: it goes
// into tool names, which providers restrict.
func ValidMCPServerName(name string) bool {
	return NameChars(name, MaxMCPServerName) && !strings.Contains(name, "__")
}

// MCPServerNames returns the configured servers' names, sorted.
func (o Options) MCPServerNames() []string {
	names := make([]string, 0, len(o.MCPServers))
	for name := range o.MCPServers {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

func (o Options) validateMCP() error {
	for _, name := range o.MCPServerNames() {
		s := o.MCPServers[name]
		where := "magenta options: mcpServers." + name
		switch {
		case !ValidMCPServerName(name):
			return fmt.Errorf("magenta options: mcpServers: the name %q must be 1-40 letters, digits, _ or - (no \"__\")", name)
		case (s.Command == "") == (s.URL == ""):
			return fmt.Errorf("%s: needs either command or url", where)
		case s.URL != "" && !strings.HasPrefix(s.URL, "http://") && !strings.HasPrefix(s.URL, "https://"):
			return fmt.Errorf("%s.url: %q must start with http:// or https://", where, s.URL)
		case s.URL != "" && (len(s.Args) > 0 || len(s.Env) > 0 || s.Cwd != ""):
			return fmt.Errorf("%s: args, env and cwd are for a command, not a url", where)
		case s.Command != "" && len(s.Headers) > 0:
			return fmt.Errorf("%s.headers: headers are for a url, not a command", where)
		case s.Cwd != "" && !filepath.IsAbs(s.Cwd):
			return fmt.Errorf("%s.cwd: %q must be an absolute path", where, s.Cwd)
		case s.Timeout < 0:
			return fmt.Errorf("%s.timeout: must be positive", where)
		}
	}
	return nil
}
