package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// mcpServers from untrusted RPC input: every malformed entry is named.
func TestDecodeMCPServers(t *testing.T) {
	const profiles = `"profiles":[{"name":"a","provider":"anthropic","model":"m"}]`
	tests := []struct{ servers, wantErr string }{
		{`{}`, ""},
		{`{"gh":{"command":"gh-mcp","args":["--x"],"env":{"T":"1"},"cwd":"/w","allow":["*"],"timeout":5},"web":{"url":"https://x/mcp","headers":{"A":"b"}}}`, ""},
		{`{"gh":{}}`, "mcpServers.gh: needs either command or url"},
		{`{"gh":{"command":"x","url":"http://x"}}`, "mcpServers.gh: needs either command or url"},
		{`{"gh":{"url":"ftp://x"}}`, `mcpServers.gh.url: "ftp://x" must start with http:// or https://`},
		{`{"gh":{"url":"http://x","args":["a"]}}`, "args, env and cwd are for a command"},
		{`{"gh":{"command":"x","headers":{"A":"b"}}}`, "headers are for a url"},
		{`{"gh":{"command":"x","cwd":"rel"}}`, `mcpServers.gh.cwd: "rel" must be an absolute path`},
		{`{"gh":{"command":"x","timeout":-1}}`, "mcpServers.gh.timeout: must be positive"},
		{`{"a b":{"command":"x"}}`, `the name "a b" must be`},
		{`{"a__b":{"command":"x"}}`, `the name "a__b" must be`},
		{`{"gh":{"command":5}}`, "magenta options: json"},
		{`[]`, "magenta options: json"},
	}
	for _, tt := range tests {
		_, err := Decode([]byte(`{` + profiles + `,"mcpServers":` + tt.servers + `}`))
		if tt.wantErr == "" {
			assert.NoError(t, err, tt.servers)
		} else {
			assert.ErrorContains(t, err, tt.wantErr, tt.servers)
		}
	}
}
