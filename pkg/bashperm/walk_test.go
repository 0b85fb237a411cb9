package bashperm

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// secretWorkspace holds a .env (hidden) and a server.key (not hidden),
// both with the secret hunter2, beside ordinary sources.
func secretWorkspace(t testing.TB) Env {
	t.Helper()
	ws := t.TempDir()
	for f, data := range map[string]string{
		"README.md": "readme\n", "src/main.go": "package main // hunter2?\n", "docs/guide.md": "guide\n",
		".env": "TOKEN=hunter2\n", "certs/server.key": "hunter2\n",
	} {
		write(t, filepath.Join(ws, f), data)
	}
	return Env{Cwd: ws, Workspace: ws}
}

func TestRecursiveReadersAskBelowSecrets(t *testing.T) {
	env := secretWorkspace(t)
	c := mustNew(t, Config{})
	runCases(t, c, env, []tcase{
		{"grep -rn hunter2 .", false, "including the secret", ""},
		{"grep -rn hunter2", false, "including the secret", ""},
		{"grep -R hunter2 .", false, "`-R`", ""},
		{"grep --recursive hunter2 certs", false, "server.key", ""},
		{"grep -d recurse hunter2 .", false, "including the secret", ""},
		{"rg -n hunter2", false, "certs/server.key", ""},
		{"rg hunter2 certs", false, "server.key", ""},
		{"rg -n hunter2 | head", false, "server.key", ""},
		{"git grep hunter2", false, "runs `git grep`", ""},
		{"tar cf - .", false, "runs `tar`", ""},
		{"zip -r x.zip .", false, "runs `zip`", ""},
		{"cp -r certs out", false, "runs `cp`", ""},
		{"find . -type f -exec cat {} +", false, "-exec", ""},
		{"cat certs/*", false, "secret", ""},
		{"wc -l */*", false, "secret", ""},
		{"diff -r src certs", false, "server.key", ""},
		{"diff -r --from-file=certs src", false, "server.key", ""},
		{"diff src certs", false, "server.key", ""}, // one level deep without -r
		// Trees without secrets, and readers told to skip them.
		{"grep -rn hunter2 src docs", true, "", ""},
		{"grep -rn --include='*.go' hunter2 .", true, "", ""},
		{"grep -rn --include='*.key' hunter2 .", false, "server.key", ""},
		{"rg -n hunter2 src", true, "", ""},
		{"rg -n hunter2 --glob '*.go'", true, "", ""},
		{"rg -n hunter2 -g '*.{go,key}'", false, "including the secret", ""},
		{"rg -n hunter2 --iglob '*.KEY'", false, "server.key", ""},
		{"rg -n hunter2 -g '!*.md'", false, "server.key", ""},
		{"grep -n hunter2 README.md", true, "", ""},
		{"diff -r src docs", true, "", ""},
		{"diff README.md docs/guide.md", true, "", ""},
	})
}

// rg skips hidden files such as .env unless something whitelists them:
// a glob, a type, or a "!" line in an ignore file.
func TestRgHiddenSecrets(t *testing.T) {
	env := secretWorkspace(t)
	if err := os.Remove(filepath.Join(env.Workspace, "certs/server.key")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(env.Workspace, ".config/app/prod.pem"), "x\n")
	c := mustNew(t, Config{})
	runCases(t, c, env, []tcase{
		{"rg -n hunter2", true, "", ""},
		{"grep -rn hunter2 .", false, "including the secret", ""},
		{"rg -n hunter2 -g '.env'", false, ".env", ""},
		{"rg -n hunter2 -t sh", false, "including the secret", ""},
	})
	write(t, filepath.Join(env.Workspace, "docs/.gitignore"), "!.gitkeep\n!/build/keep.txt\n")
	runCases(t, c, env, []tcase{{"rg -n hunter2", true, "", ""}})
	write(t, filepath.Join(env.Workspace, "docs/.ignore"), "!.*\n")
	runCases(t, c, env, []tcase{{"rg -n hunter2", false, "whitelists hidden files", ""}})
}

func TestDiffRecursiveFollowsLinks(t *testing.T) {
	env := secretWorkspace(t)
	if err := os.Symlink("/etc/passwd", filepath.Join(env.Workspace, "docs/passwd")); err != nil {
		t.Fatal(err)
	}
	runCases(t, mustNew(t, Config{}), env, []tcase{
		{"diff -r src docs", false, "follows the symlink docs/passwd", ""},
		{"grep -rn x docs", true, "", ""}, // grep -r does not follow links met in the walk
	})
}

func TestWalkBound(t *testing.T) {
	env := secretWorkspace(t)
	// A smaller bound keeps the test fast; the benchmark walks the real one.
	defer func(n int) { maxWalkEntries = n }(maxWalkEntries)
	maxWalkEntries = 500
	big := filepath.Join(env.Workspace, "big")
	makeTree(t, big, maxWalkEntries+1)
	c := mustNew(t, Config{})
	runCases(t, c, env, []tcase{
		{"rg -n x big", false, "too many to check", ""},
		{"rg -n x src", true, "", ""},
	})
	// A large ignored tree (node_modules) is not walked: rg skips it.
	if err := os.Remove(filepath.Join(env.Workspace, "certs/server.key")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(env.Workspace, ".ignore"), "big/\n")
	runCases(t, c, env, []tcase{
		{"rg -n x", true, "", ""},
		{"grep -rn x .", false, "reads every file below", ""},
	})
}

// makeTree creates n empty files below dir, 100 per directory.
func makeTree(t testing.TB, dir string, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		d := filepath.Join(dir, fmt.Sprintf("d%03d", i/100))
		if i%100 == 0 {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("f%d.go", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// BenchmarkCheckWalk20000 checks an rg over a tree of 20 000 entries
// (19 800 files in 200 directories), the most the walk accepts.
func BenchmarkCheckWalk20000(b *testing.B) {
	env := secretWorkspace(b)
	big := filepath.Join(env.Workspace, "big")
	makeTree(b, big, maxWalkEntries-200)
	c := mustNew(b, Config{})
	if v := c.Check("rg -n TODO big", env); !v.Allow {
		b.Fatal(v.Reason)
	}
	for b.Loop() {
		c.Check("rg -n TODO big", env)
	}
}

// BenchmarkCheckTypicalPipeline is a pipeline that walks nothing.
func BenchmarkCheckTypicalPipeline(b *testing.B) {
	env := fixture(b)
	c := mustNew(b, Config{})
	const cmd = "cat src/main.go | grep -n func | sort | uniq -c | head -20"
	if v := c.Check(cmd, env); !v.Allow {
		b.Fatal(v.Reason)
	}
	for b.Loop() {
		c.Check(cmd, env)
	}
}

// rg skips what ignore files name: .gitignore inside a repository, .ignore
// and .rgignore anywhere, unless a "!" line re-includes something.
func TestRgIgnoreFiles(t *testing.T) {
	c := mustNew(t, Config{})
	env := secretWorkspace(t)
	ws := env.Workspace
	write(t, filepath.Join(ws, ".gitignore"), "certs/\n")
	runCases(t, c, env, []tcase{{"rg -n hunter2", false, "server.key", ""}}) // not a repository
	if err := os.Mkdir(filepath.Join(ws, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	runCases(t, c, env, []tcase{
		{"rg -n hunter2", true, "", ""},
		{"rg -n hunter2 src", true, "", ""},
		{"rg -n hunter2 certs", false, "server.key", ""}, // named roots are searched
		{"rg -n --no-ignore hunter2", false, "server.key", ""},
		{"rg -n --no-ignore-vcs hunter2", false, "server.key", ""},
		{"rg -n -g '*.key' hunter2", false, "server.key", ""}, // globs override ignores
		{"grep -rn hunter2 .", false, "secret", ""},
	})
	write(t, filepath.Join(ws, ".gitignore"), "/certs\n*.log\n")
	runCases(t, c, env, []tcase{{"rg -n hunter2", true, "", ""}})
	write(t, filepath.Join(ws, ".gitignore"), "/src/certs\n")
	runCases(t, c, env, []tcase{{"rg -n hunter2", false, "server.key", ""}})
	write(t, filepath.Join(ws, ".gitignore"), "*.key\n")
	runCases(t, c, env, []tcase{{"rg -n hunter2", true, "", ""}})
	write(t, filepath.Join(ws, "certs/.ignore"), "!server.key\n")
	runCases(t, c, env, []tcase{{"rg -n hunter2", false, "server.key", ""}})
}

// Whatever the checker allows, run for real, prints no secret: every
// secret file holds hunter2, no other file does.
func TestAllowedReadersNeverPrintSecrets(t *testing.T) {
	for _, prog := range []string{"bash", "git"} {
		if _, err := exec.LookPath(prog); err != nil {
			t.Skip("needs " + prog)
		}
	}
	c := mustNew(t, Config{})
	commands := []string{"rg -n hunter2", "rg -n hunter2 .", "rg -n hunter2 -g '*.go'", "rg -n hunter2 --iglob '*.KEY'",
		"rg -n hunter2 -g '.env*'", "rg -n hunter2 -t go", "rg -n hunter2 certs", "grep -rn hunter2 .", "grep -rn hunter2",
		"grep -rn --include='*.go' hunter2 .", "grep -rn --include='*.key' hunter2 .", "diff -r src certs", "diff -r src docs",
		"cat certs/*", "cat */*", "head -n 5 *", "git grep hunter2", "git log -p", "git show", "git diff HEAD~1",
		"rg -n hunter2 --no-ignore", "rg -uu hunter2", "tail -n 1 .*", "git status -v", "git show HEAD:README.md",
		"git log -p -- src", "git diff HEAD~1 -- ."}
	for _, world := range []struct {
		name  string
		setup func(t *testing.T, ws string)
	}{
		{"plain", func(t *testing.T, ws string) {}},
		{"gitignored", func(t *testing.T, ws string) {
			write(t, filepath.Join(ws, ".gitignore"), ".env\ncerts/\n")
			gitCommitAll(t, ws)
		}},
		{"committed secret", func(t *testing.T, ws string) {
			gitCommitAll(t, ws)
			if err := os.Remove(filepath.Join(ws, "certs/server.key")); err != nil {
				t.Fatal(err)
			}
			gitCommitAll(t, ws)
		}},
		{"whitelisting ignore file", func(t *testing.T, ws string) {
			write(t, filepath.Join(ws, ".gitignore"), "certs/\n")
			write(t, filepath.Join(ws, ".ignore"), "!certs/\n!.env\n")
			gitCommitAll(t, ws)
		}},
	} {
		t.Run(world.name, func(t *testing.T) {
			env := secretWorkspace(t)
			write(t, filepath.Join(env.Workspace, "src/main.go"), "package main // public\n")
			world.setup(t, env.Workspace)
			allowed := 0
			defer func() { t.Logf("%d of %d commands allowed and run", allowed, len(commands)) }()
			for _, cmd := range commands {
				if _, err := exec.LookPath(strings.Fields(cmd)[0]); err != nil || !c.Check(cmd, env).Allow {
					continue // a reader this machine lacks is not run
				}
				allowed++
				run := exec.Command("bash", "--noprofile", "--norc", "-c", cmd)
				run.Dir = env.Workspace
				out, _ := run.CombinedOutput()
				if strings.Contains(string(out), "hunter2") {
					t.Errorf("%q was allowed and printed a secret:\n%s", cmd, out)
				}
			}
		})
	}
}

// gitCommitAll commits everything in ws (a repository after the first
// call), isolated from the machine's git config.
func gitCommitAll(t *testing.T, ws string) {
	t.Helper()
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(t.TempDir(), "gitconfig"))
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=a", "-c", "user.email=a@example.com", "commit", "-qm", "x"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = ws
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
}
