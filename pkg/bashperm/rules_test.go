package bashperm

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

func TestUserRules(t *testing.T) {
	env := richFixture(t)
	cfg, err := ParseConfig([]byte(`{"rules": [
		{"command": "npm", "subcommands": ["test", "run lint"], "args": "none"},
		{"command": "go", "subcommands": ["test", "vet", "build"], "args": "any",
		 "denyFlags": ["-exec", "-toolexec", "-o"], "valueFlags": ["-run"]},
		{"command": "make", "subcommands": ["test"], "allowFlags": ["-n", "-j"], "valueFlags": ["-j"], "args": "none"},
		{"command": "touch", "args": "write-paths"},
		{"command": "jq", "args": "pattern-then-read-paths", "pathFlags": ["--from-file"]},
		{"command": "ls", "args": "none"},
		{"command": "git", "subcommands": ["commit"], "args": "any"},
		{"command": "git", "subcommands": ["add"]}
	]}`))
	if err != nil {
		t.Fatal(err)
	}
	runCases(t, mustNew(t, cfg), env, []tcase{
		{"npm test", true, "", ""},
		{"npm run lint", true, "", ""},
		{"npm run build", false, "runs `npm run`", ""},
		{"npm install left-pad", false, "runs `npm install`", ""},
		{"npm test extra", false, "takes no operands", ""},
		{"go test ./...", true, "", ""},
		{"go test -run TestX ./pkg/", true, "", ""},
		{"go test -run=TestX -v ./pkg/", true, "", ""},
		{"go test -exec sh ./...", false, "`-exec`", ""},
		{"go build -o /tmp/x .", false, "`-o`", ""},
		{"go test -toolexec=x ./...", false, "`-toolexec`", ""},
		{"go run .", false, "runs `go run`", ""},
		{"make test", true, "", ""},
		{"make -j 4 test", true, "", ""},
		{"make -nj4 test", true, "", ""},
		{"make -k test", false, "`-k`", ""},
		{"make install", false, "runs `make install`", ""},
		{"touch new.txt src/new.go", true, "", ""},
		{"touch .git/hooks/pre-commit", false, "inside .git/", ""},
		{"touch ../x", false, "outside", ""},
		{"touch src/.env", false, "secret", ""},
		{"touch new.txt && cat *.md", false, "glob", ""},
		{"jq .a data.json", true, "", ""},
		{"jq .a /etc/passwd", false, "outside", ""},
		{"jq --from-file /etc/x data.json", false, "/etc/x", ""},
		{"ls", true, "", ""}, // the user rule replaced the default ls
		{"ls src", false, "no operands", ""},
		{"cat README.md", true, "", ""}, // other defaults stay
		{"git commit -m x", true, "", ""},
		{"git add src/main.go", true, "", ""},
		{"git add /etc/passwd", false, "outside", ""},
		{"git --git-dir=/tmp/x commit -m x", false, "--git-dir", ""},
		{"git -c core.hooksPath=/tmp commit", false, "`-c`", ""},
		{"git status", false, "runs `git status`", ""}, // replaced too
	})
}

func TestParseConfigErrors(t *testing.T) {
	for _, tc := range []struct{ json, want string }{
		{`{"rules": [{"comand": "x"}]}`, `unknown field "comand"`},
		{`{"rulez": []}`, `unknown field "rulez"`},
		{`{"rules": []} {}`, "after the JSON object"},
		{`{"rules": [`, "unexpected EOF"},
		{`{"rules": [{"command": 3}]}`, "command"},
	} {
		if _, err := ParseConfig([]byte(tc.json)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseConfig(%s) = %v, want error containing %q", tc.json, err, tc.want)
		}
	}
	if cfg, err := ParseConfig([]byte(`{"rules": [{"command": "npm"}]}`)); err != nil || len(cfg.Rules) != 1 {
		t.Errorf("valid config: %v %v", cfg, err)
	}
}

func TestNewValidation(t *testing.T) {
	for _, tc := range []struct {
		rule Rule
		want string
	}{
		{Rule{}, "rule 1 (\"\"): command: is empty"},
		{Rule{Command: "/bin/ls"}, "command: must be a bare program name"},
		{Rule{Command: "a b"}, "command: must be a bare"},
		{Rule{Command: "cd"}, "cd is a shell builtin"},
		{Rule{Command: "eval"}, "eval is a shell builtin"},
		{Rule{Command: "x", Args: "paths"}, `args: unknown kind "paths"`},
		{Rule{Command: "x", DenyFlags: []string{"x"}}, `denyFlags[0]: "x" is not a flag`},
		{Rule{Command: "x", AllowFlags: []string{"-a", "--b=c"}}, `allowFlags[1]: "--b=c" is not a flag`},
		{Rule{Command: "x", ValueFlags: []string{"--"}}, "valueFlags[0]"},
		{Rule{Command: "x", PathFlags: []string{"- x"}}, "pathFlags[0]"},
		{Rule{Command: "x", Subcommands: []string{"  "}}, "subcommands[0]: is empty"},
		{Rule{Command: "x", Subcommands: []string{"run", "run -x"}}, `subcommands[1]: "-x" is not a plain word`},
		{Rule{Command: "x", Subcommands: []string{"$(id)"}}, "not a plain word"},
		{Rule{Command: "x", AllowFlags: []string{"-a"}, DenyFlags: []string{"-a"}}, "also in allowFlags"},
	} {
		_, err := New(Config{Rules: []Rule{{Command: "ok"}, tc.rule}})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%+v) = %v, want error containing %q", tc.rule, err, tc.want)
		} else if !strings.Contains(err.Error(), "rule 1") {
			t.Errorf("error %q does not name the rule index", err)
		}
	}
}

// TestGlobMatchesBash compares the checker's glob expansion with bash's on
// the fixture (skipped without bash).
func TestGlobMatchesBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	env := richFixture(t)
	for _, pat := range []string{"*", "*.md", "src/*", "*/", "s*/*.go", "d?sh/*", "./*.txt", `\*`, "'*'.md", "nomatch*", "../*/.env", "*/.*"} {
		out, err := exec.Command(bash, "--noprofile", "--norc", "-c", "cd \"$1\" && printf '%s\\n' "+pat, "x", env.Workspace).Output()
		if err != nil {
			t.Fatalf("bash %s: %v", pat, err)
		}
		want := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
		f, err := syntax.NewParser().Parse(strings.NewReader("echo "+pat), "")
		if err != nil {
			t.Fatal(err)
		}
		r := &run{ws: env.Workspace}
		fields, reason := r.expandWord(f.Stmts[0].Cmd.(*syntax.CallExpr).Args[1], env.Workspace)
		if reason != "" {
			t.Errorf("%s: %s", pat, reason)
			continue
		}
		var got []string
		for _, fl := range fields {
			got = append(got, fl.s)
		}
		slices.Sort(want)
		// bash >= 5.2 skips "." and ".."; the checker includes them (older bash does not skip them).
		got = slices.DeleteFunc(got, func(s string) bool { b := filepath.Base(s); return b == "." || b == ".." })
		if !slices.Equal(got, want) {
			t.Errorf("glob %s: got %q, bash %q", pat, got, want)
		}
	}
}
