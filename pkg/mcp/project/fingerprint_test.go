package project

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magenta-nvim/magenta/pkg/mcp"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
		t.Fatal(err)
	}
}

// whats lists what a server's runs record, with "!" for a missing file.
func whats(rs []Ran) string {
	var out []string
	for _, x := range rs {
		w := x.What
		if x.State == stateMissing {
			w += "!"
		}
		out = append(out, w)
	}
	return strings.Join(out, "; ")
}

func TestRunsRecordsWhatInterpretersAndLaunchersRun(t *testing.T) {
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(ws, "tools/server.sh"), "echo hi\n")
	write(t, filepath.Join(ws, "srv.js"), "1\n")
	write(t, filepath.Join(ws, "pre.js"), "1\n")
	write(t, filepath.Join(ws, "bin/server"), "#!/bin/sh\n")
	write(t, filepath.Join(ws, "node_modules/@acme/mcp/package.json"), `{"name": "@acme/mcp", "bin": {"acme-mcp": "cli.js"}}`)
	write(t, filepath.Join(ws, "node_modules/@acme/mcp/cli.js"), "1\n")
	if err := os.MkdirAll(filepath.Join(ws, "node_modules/.bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../@acme/mcp/cli.js", filepath.Join(ws, "node_modules/.bin/mcp")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(ws, "pkgdir/pyproject.toml"), "[project]\n")
	// Launchers this machine may lack, as scripts on PATH.
	bin := t.TempDir()
	for _, name := range []string{"uvx", "pnpm"} {
		write(t, filepath.Join(bin, name), "#!/bin/sh\n")
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	for _, c := range []struct {
		cmd  string
		args []string
		want string
	}{
		{"bash", []string{"tools/server.sh"}, "command bash; file tools/server.sh"},
		{"sh", []string{"-c", "exec ./tools/server.sh --x"}, "command sh; file tools/server.sh"},
		{"node", []string{"--require=./pre.js", "srv.js", "data.json"}, "command node; file pre.js; file srv.js"},
		{"node", []string{"dist/index.js"}, "command node; file dist/index.js!"}, // not built yet: a planted one would run
		{"python3", []string{"-m", "tools.server"}, "command python3; file tools/server.py!; file tools/server/__main__.py!; file tools/server/__init__.py!"},
		{"./bin/server", nil, "command ./bin/server"},
		{"./node_modules/.bin/mcp", nil, "command ./node_modules/.bin/mcp"},
		{"npx", []string{"-y", "@acme/mcp@1.2"}, "command npx; file .npmrc!; file node_modules/@acme/mcp/package.json; file node_modules/@acme/mcp/cli.js; file node_modules/.bin/mcp"},
		{"npx", []string{"-y", "server-github"}, "command npx; file .npmrc!; file node_modules/server-github/package.json!; file node_modules/.bin/server-github!"},
		{"npx", []string{"-p", "@acme/mcp", "acme-mcp", "--port", "1"}, "command npx; file .npmrc!; file node_modules/@acme/mcp/package.json; file node_modules/@acme/mcp/cli.js; file node_modules/.bin/acme-mcp!"},
		{"uvx", []string{"--from", "./pkgdir", "my-server"}, "command uvx; file uv.toml!; file pkgdir/pyproject.toml; file pkgdir/setup.py!; file pkgdir/setup.cfg!"},
		{"pnpm", []string{"dlx", "@acme/mcp"}, "command pnpm; file .npmrc!; file node_modules/@acme/mcp/package.json; file node_modules/@acme/mcp/cli.js; file node_modules/.bin/mcp"},
		{"env", []string{"A=1", "bash", "tools/server.sh"}, "command env; command bash; file tools/server.sh"},
		{"cat", []string{"tools/server.sh"}, "command cat"}, // not an interpreter: its arguments are data
	} {
		if _, err := exec.LookPath(strings.Fields(c.cmd)[0]); err != nil && !strings.Contains(c.cmd, "/") {
			// Recorded as not found; the launcher logic does not run.
			continue
		}
		rs := runs(mcp.ServerConfig{Command: c.cmd, Args: c.args, Cwd: ws}, ws, newHasher(), false)
		if got := whats(rs); got != c.want {
			t.Errorf("%s %q: %s\nwant %s", c.cmd, c.args, got, c.want)
		}
	}

	// A workspace executable is hashed; a change shows.
	cfg := mcp.ServerConfig{Command: "./bin/server", Cwd: ws}
	before := runs(cfg, ws, newHasher(), false)
	if !strings.HasPrefix(before[0].State, "sha256:") || before[0].Path != "bin/server" {
		t.Fatalf("%+v", before)
	}
	write(t, filepath.Join(ws, "bin/server"), "#!/bin/sh\nplanted\n")
	after := runs(cfg, ws, newHasher(), false)
	if serverDigest(before) == serverDigest(after) {
		t.Fatal("a rewritten workspace executable has the same digest")
	}
	// A link out of the workspace is followed and shown.
	out := filepath.Join(t.TempDir(), "evil.sh")
	write(t, out, "evil\n")
	if err := os.Remove(filepath.Join(ws, "tools/server.sh")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(out, filepath.Join(ws, "tools/server.sh")); err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("bash"); err == nil {
		rs := runs(mcp.ServerConfig{Command: "bash", Args: []string{"tools/server.sh"}, Cwd: ws}, ws, newHasher(), false)
		if len(rs) != 2 || rs[1].Path != "tools/server.sh -> "+out || !strings.HasPrefix(rs[1].State, "sha256:") {
			t.Fatalf("%+v", rs)
		}
	}
}

func TestChanges(t *testing.T) {
	old := Fingerprint{File: "f", Runs: map[string]string{
		"a: command bash":             "/usr/bin/bash\t",
		"a: file tools/server.sh":     "tools/server.sh\tsha256:1",
		"b: file node_modules/.bin/x": "node_modules/.bin/x\tmissing",
		"b: file gone.js":             "gone.js\tsha256:2",
	}}
	now := Fingerprint{File: "f", Runs: map[string]string{
		"a: command bash":             "/ws/bin/bash\tsha256:3",
		"a: file tools/server.sh":     "tools/server.sh\tsha256:9",
		"b: file node_modules/.bin/x": "node_modules/.bin/x\tsha256:4",
		"b: file gone.js":             "gone.js\tmissing",
	}}
	got := strings.Join(now.Changes(old), "\n")
	want := strings.Join([]string{
		"a: the command bash now runs /ws/bin/bash (was /usr/bin/bash)",
		"a: tools/server.sh changed since you trusted it",
		"b: gone.js is gone since you trusted it",
		"b: node_modules/.bin/x appeared since you trusted it",
	}, "\n")
	if got != want {
		t.Fatalf("changes:\n%s\nwant:\n%s", got, want)
	}
	if c := (Fingerprint{File: "g", Runs: old.Runs}).Changes(old); len(c) != 1 || c[0] != ".mcp.json changed since you trusted it" {
		t.Fatalf("%q", c)
	}
	// A file name cannot add a line to the question.
	planted := Fingerprint{File: "f", Runs: map[string]string{"c: file a\nb.sh": "a\nb.sh\tsha256:5"}}
	if c := planted.Changes(Fingerprint{File: "f", Runs: map[string]string{"c: file a\nb.sh": "a\nb.sh\tmissing", "c: file x": "x\tsha256:1"}}); strings.Join(c, "|") != `c: "a\nb.sh" appeared since you trusted it|c: file x is no longer run` {
		t.Fatalf("%q", c)
	}
}
