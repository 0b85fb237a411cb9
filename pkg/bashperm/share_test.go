package bashperm

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// agentReadOnlyCommands are 60 read-only commands of the kind coding agents
// run to look around a repository (issue 15 part 4 asked for fewer
// needless questions). None writes, runs project code or reads a secret.
var agentReadOnlyCommands = []string{
	"ls -la", "ls src", "cat README.md", "head -n 20 src/main.go", "tail -n 50 build.log",
	"wc -l src/main.go", "grep -n func src/main.go", "grep -rn TODO src", "rg -n 'func ' src", "rg -n TODO",
	"find src -name '*.go'", "git status", "git log --oneline -10", "git diff", "git diff --cached",
	"git show HEAD --stat", "git log -p -3", "git branch -a", "git blame README.md", "git stash list",
	"git config --get user.name", "stat README.md", "file README.md", "du -sh .", "tree",
	"tree -L 2 src", "diff README.md docs/README.md", "sed -n '1,5p' README.md", "sort notes.txt", "sort notes.txt | uniq -c",
	"cut -c1-3 notes.txt", "nl src/main.go", "tr a b < notes.txt", "sha256sum src/main.go", "md5sum README.md",
	"basename src/main.go", "dirname src/main.go", "realpath src", "date", "uname -a",
	"whoami", "id", "hostname", "go version", "go env GOPATH",
	"go list ./...", "which go", "type ls", "printf '%s\\n' hello", "jq .name data.json",
	"xxd src/main.go | head", "od -c notes.txt | head", "column -t files.txt", "paste notes.txt files.txt", "tac build.log",
	"seq 1 10", "test -f go.mod && echo yes", "git log --stat -5 | head -40", "cat src/main.go | grep -n import", "pwd",
}

// TestAgentReadOnlyCommandsShare reports the share of the list allowed
// without asking, in a repository workspace with an ignored .env.
func TestAgentReadOnlyCommandsShare(t *testing.T) {
	if len(agentReadOnlyCommands) != 60 {
		t.Fatalf("%d commands, want 60", len(agentReadOnlyCommands))
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(t.TempDir(), "gitconfig"))
	ws := t.TempDir()
	for f, data := range map[string]string{
		"README.md": "# x\n", "docs/README.md": "# y\n", "src/main.go": "package main\n", "build.log": "ok\n",
		"notes.txt": "b\na\n", "files.txt": "a 1\nb 2\n", "data.json": `{"name":"x"}`, "go.mod": "module x\n",
		".gitignore": ".env\n", ".env": "TOKEN=hunter2\n",
	} {
		write(t, filepath.Join(ws, f), data)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=a", "-c", "user.email=a@example.com", "commit", "-qm", "x"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = ws
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "README.md"), []byte("# x2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := mustNew(t, Config{})
	allowed := 0
	for _, cmd := range agentReadOnlyCommands {
		if v := c.Check(cmd, Env{Cwd: ws, Workspace: ws}); v.Allow {
			allowed++
		} else {
			t.Logf("asks: %s: %s", cmd, v.Reason)
		}
	}
	t.Logf("allowed %d of %d read-only agent commands", allowed, len(agentReadOnlyCommands))
	if allowed < 58 {
		t.Errorf("only %d of 60 allowed", allowed)
	}
}
