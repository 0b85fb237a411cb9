package project

import (
	"strings"
	"testing"

	"github.com/magenta-nvim/magenta/pkg/mcp"
)

func env(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestParseStdioAndHTTP(t *testing.T) {
	data := []byte(`{"mcpServers": {
		"github": {"command": "npx", "args": ["-y", "server-github", "${CLAUDE_PROJECT_DIR}/x"], "env": {"TOKEN": "${GH_TOKEN}", "MODE": "${MODE:-ro}"}},
		"docs": {"type": "http", "url": "${DOCS_URL:-https://docs.example/mcp}", "headers": {"Authorization": "Bearer ${API_KEY}"}, "oauth": {"clientId": "x"}},
		"old": {"type": "sse", "url": "http://127.0.0.1:9/sse"},
		"bare": {"url": "https://example.com/mcp"},
		"typed": {"type": "stdio", "command": "./bin/server"}
	}}`)
	got, err := Parse(data, "/ws", env(map[string]string{"GH_TOKEN": "t0k", "API_KEY": "k"}))
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]Server{}
	for _, s := range got {
		byName[s.Name] = s
	}
	if len(got) != 5 || got[0].Name != "bare" {
		t.Fatalf("servers %+v", got)
	}
	gh := byName["github"].Config
	if gh.Command != "npx" || strings.Join(gh.Args, " ") != "-y server-github /ws/x" || gh.Env["TOKEN"] != "t0k" || gh.Env["MODE"] != "ro" ||
		gh.Cwd != "/ws" || gh.Source != mcp.SourceProject || gh.Problem != "" {
		t.Fatalf("github %+v", gh)
	}
	if s := strings.Join(byName["github"].Describe(), "\n"); s != "github (stdio): npx -y server-github \"${CLAUDE_PROJECT_DIR}/x\"\n  env MODE=\"${MODE:-ro}\"\n  env TOKEN=\"${GH_TOKEN}\"" {
		t.Fatalf("shown as written: %s", s)
	}
	if s := strings.Join(byName["docs"].Describe(), "\n"); s != "docs (http): \"${DOCS_URL:-https://docs.example/mcp}\"\n  header Authorization: \"Bearer ${API_KEY}\"" {
		t.Fatalf("shown as written: %s", s)
	}
	docs := byName["docs"].Config
	if docs.URL != "https://docs.example/mcp" || docs.Headers["Authorization"] != "Bearer k" || docs.SSE || docs.Command != "" {
		t.Fatalf("docs %+v", docs)
	}
	if c := byName["old"].Config; !c.SSE || c.URL != "http://127.0.0.1:9/sse" {
		t.Fatalf("sse %+v", c)
	}
	if c := byName["bare"].Config; c.URL != "https://example.com/mcp" || c.SSE {
		t.Fatalf("a url without a type is http: %+v", c)
	}
}

func TestParseMissingVariableStopsOnlyItsServer(t *testing.T) {
	got, err := Parse([]byte(`{"mcpServers": {"a": {"command": "x", "env": {"K": "${NOPE}"}}, "b": {"command": "y"}}}`), "/ws", env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got[0].Config.Problem, "NOPE") || got[1].Config.Problem != "" {
		t.Fatalf("%+v", got)
	}
}

func TestParseMalformed(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{`, "not a JSON object"},
		{`[]`, "not a JSON object"},
		{`{"servers": {}}`, `no "mcpServers" object`},
		{`{"mcpServers": []}`, `"mcpServers" must be an object`},
		{`{"mcpServers": null}`, `"mcpServers" must be an object`},
		{`{"mcpServers": {"a": {"args": ["x"]}}}`, `mcpServers.a: a stdio server needs "command"`},
		{`{"mcpServers": {"a": {"command": 5}}}`, `mcpServers.a: not a server object: "command" must be a string, not number`},
		{`{"mcpServers": {"a": {"command": "x", "args": "y"}}}`, `"args" must be a list of strings`},
		{`{"mcpServers": {"a": {"type": "http"}}}`, `a "http" server needs "url"`},
		{`{"mcpServers": {"a": {"type": "ws", "url": "ws://x"}}}`, `"type" "ws" is not one of`},
		{`{"mcpServers": {"a": {"type": "http", "url": "ftp://x"}}}`, `must start with http://`},
		{`{"mcpServers": {"a": {"type": "http", "url": "http://x", "command": "y"}}}`, `are for a stdio server`},
		{`{"mcpServers": {"a": {"command": "x", "headers": {}}}}`, `are for "type": "http" or "sse"`},
		{`{"mcpServers": {"a__b": {"command": "x"}}}`, `mcpServers.a__b: the name must be`},
		{`{"mcpServers": {}} {}`, "text after the JSON value"},
	} {
		_, err := Parse([]byte(c.in), "/ws", env(nil))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%s) = %v; want %q", c.in, err, c.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		`{"mcpServers": {"a": {"command": "x", "args": ["${A:-b}"], "env": {"K": "${V}"}}}}`,
		`{"mcpServers": {"d": {"type": "http", "url": "https://x/${P}", "headers": {"H": "${T}"}}}}`,
		`{"mcpServers": {"s": {"type": "sse", "url": "http://x"}}}`,
		`{"mcpServers": {}}`, `{`, `null`, `{"mcpServers": {"a": null}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		servers, err := Parse(data, "/ws", env(map[string]string{"A": "1", "T": "t"}))
		if err != nil {
			if servers != nil {
				t.Fatal("servers with an error")
			}
			return
		}
		for _, s := range servers {
			c := s.Config
			if (c.Command == "") == (c.URL == "") || c.Source != mcp.SourceProject || c.Name != s.Name {
				t.Fatalf("invalid server accepted: %+v", c)
			}
			if c.Command != "" && c.Cwd != "/ws" {
				t.Fatalf("stdio server outside the workspace: %+v", c)
			}
		}
	})
}
