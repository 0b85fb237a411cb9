package bashperm

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunCLI(t *testing.T) {
	env := fixture(t)
	goodCfg := filepath.Join(t.TempDir(), "ok.json")
	write(t, goodCfg, `{"rules": [{"command": "npm", "subcommands": ["test"], "args": "none"}]}`)
	badCfg := filepath.Join(t.TempDir(), "bad.json")
	write(t, badCfg, `{"rules": [{"command": "npm", "argz": "none"}]}`)
	invalidRule := filepath.Join(t.TempDir(), "rule.json")
	write(t, invalidRule, `{"rules": [{"command": "/bin/rm"}]}`)
	ws := env.Workspace
	for _, tc := range []struct {
		args         []string
		code         int
		stdout, errs string
	}{
		{[]string{"--cwd", ws, "--", "ls", "-la"}, 0, "allow\n", ""},
		{[]string{"--cwd=" + ws, "--", "cat README.md | head -1"}, 0, "allow\n", ""},
		{[]string{"--cwd", ws, "--", "rm", "-rf", "/"}, 10, "ask: runs `rm`, which no rule allows\n", ""},
		{[]string{"--cwd", ws, "--", "cat .env"}, 10, "ask: reads .env", ""},
		{[]string{"--cwd", filepath.Join(ws, "src"), "--", "cat ../README.md"}, 10, "ask: reads ../README.md, outside", ""}, // workspace = --cwd
		{[]string{"--cwd", ws, "--", ""}, 10, "ask: empty command\n", ""},
		{[]string{"--cwd", ws, "--config", goodCfg, "--", "npm", "test"}, 0, "allow\n", ""},
		{[]string{"--cwd", ws, "--", "npm", "test"}, 10, "ask: runs `npm`", ""},
		{[]string{"--cwd", ws, "--sandbox", "--", "npm", "test"}, 11, "sandbox: runs `npm`, which no rule allows\n", ""},
		{[]string{"--sandbox", "--cwd", ws, "--", "ls"}, 0, "allow\n", ""},
		{[]string{"--cwd", ws, "--sandbox", "--", "make > /etc/escaped.txt"}, 10, "ask: writes /etc/escaped.txt", ""},
		{[]string{"--cwd", ws, "--sandbox", "--", "git push"}, 10, "ask: matches `git push`", ""},
		{[]string{"--cwd", ws, "--sandbox", "--", "echo x > .git/hooks/pre-commit"}, 10, "ask: writes .git/hooks/pre-commit", ""},
		{[]string{"--cwd", ws, "ls"}, 2, "", "unknown argument"},
		{[]string{"--cwd", ws}, 2, "", `missing "--"`},
		{[]string{"--cwd", ws, "--"}, 2, "", "missing command"},
		{[]string{"--cwd"}, 2, "", "--cwd needs a value"},
		{[]string{"--config", filepath.Join(ws, "nope.json"), "--", "ls"}, 2, "", "cannot read config"},
		{[]string{"--config", badCfg, "--", "ls"}, 2, "", `unknown field "argz"`},
		{[]string{"--config", invalidRule, "--", "ls"}, 2, "", "rule 0"},
		{[]string{"--cwd", filepath.Join(ws, "README.md"), "--", "ls"}, 2, "", "not a directory"},
		{[]string{"--help"}, 0, "usage: check-bash", ""},
	} {
		var out, errb bytes.Buffer
		code := RunCLI(tc.args, &out, &errb)
		if code != tc.code || !strings.HasPrefix(out.String(), tc.stdout) || !strings.Contains(errb.String(), tc.errs) {
			t.Errorf("RunCLI(%q) = %d, stdout %q, stderr %q; want %d, %q, %q", tc.args, code, out.String(), errb.String(), tc.code, tc.stdout, tc.errs)
		}
	}
}

func TestRunCLIDefaultCwd(t *testing.T) {
	env := fixture(t)
	t.Chdir(filepath.Join(env.Workspace, "src"))
	var out, errb bytes.Buffer
	if code := RunCLI([]string{"--", "cat", "main.go"}, &out, &errb); code != 0 || out.String() != "allow\n" {
		t.Errorf("got %d %q %q", code, out.String(), errb.String())
	}
	out.Reset()
	if code := RunCLI([]string{"--", "cat ../README.md"}, &out, &errb); code != 10 {
		t.Errorf("outside the default workspace (the process cwd): got %d %q", code, out.String())
	}
	if _, err := os.Stat("main.go"); err != nil {
		t.Fatal(err)
	}
}
