package bashperm

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// needRg skips without rg, except in CI, which installs it.
func needRg(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("rg"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("rg is not installed (CI installs it)")
		}
		t.Skip("needs rg")
	}
}

// The walk decides what rg reads the way the real rg does: which
// directories are repositories (so .gitignore counts), where a nested
// repository stops the .gitignore files above it, and which ignore files
// outside the walk can whitelist. Each world holds secrets with hunter2
// that an ignore file hides only if rg applies it; every command the
// checker allows is run with the real rg and must not print hunter2, and
// the first command's verdict is pinned, so the test also fails when the
// checker asks where rg provably skips the secret.
func TestRgWalkAgreesWithRg(t *testing.T) {
	needRg(t)
	commands := []string{"rg -n hunter2", "rg -n hunter2 .", "rg -n hunter2 src", "rg -n --no-require-git hunter2",
		"rg -n --require-git --no-require-git hunter2", "rg -n --no-ignore-vcs hunter2", "rg -n --no-ignore hunter2",
		"rg -n --no-ignore-dot hunter2", "rg -n --no-ignore-parent hunter2", "rg -n --no-ignore-exclude hunter2",
		"rg -n -u hunter2", "rg -n -uu hunter2", "rg -n hunter2 private", "rg -n -g '*.md' hunter2"}
	mkdir := func(t *testing.T, p string) {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := func(t *testing.T, target, p string) {
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	for _, world := range []struct {
		name  string
		allow bool // the verdict of `rg -n hunter2`
		setup func(t *testing.T, ws string)
	}{
		{".git directory", true, func(t *testing.T, ws string) { mkdir(t, filepath.Join(ws, ".git")) }},
		{".git file", true, func(t *testing.T, ws string) { write(t, filepath.Join(ws, ".git"), "gitdir: /nowhere\n") }},
		{".git link to a directory", true, func(t *testing.T, ws string) { link(t, t.TempDir(), filepath.Join(ws, ".git")) }},
		{".git link to a file", true, func(t *testing.T, ws string) { link(t, filepath.Join(ws, "README.md"), filepath.Join(ws, ".git")) }},
		{".git dangling link", false, func(t *testing.T, ws string) { link(t, "/nonexistent/git", filepath.Join(ws, ".git")) }},
		{".git link loop", false, func(t *testing.T, ws string) { link(t, ".git", filepath.Join(ws, ".git")) }},
		{"no .git", false, func(t *testing.T, ws string) {}},
		{".git in a subdirectory only", false, func(t *testing.T, ws string) {
			mkdir(t, filepath.Join(ws, "private", ".git"))
		}},
		{".ignore without git", true, func(t *testing.T, ws string) {
			write(t, filepath.Join(ws, ".ignore"), "private/\n*.key\n")
		}},
		{".rgignore without git", true, func(t *testing.T, ws string) {
			write(t, filepath.Join(ws, ".rgignore"), "private/\n*.key\n")
		}},
		{"nested repository below .gitignore", false, func(t *testing.T, ws string) {
			mkdir(t, filepath.Join(ws, ".git"))
			mkdir(t, filepath.Join(ws, "lib", ".git"))
			write(t, filepath.Join(ws, ".gitignore"), "private/\n*.key\n")
			write(t, filepath.Join(ws, "lib", "server.key"), "hunter2\n")
		}},
		{"nested repository as a .git file", false, func(t *testing.T, ws string) {
			mkdir(t, filepath.Join(ws, ".git"))
			write(t, filepath.Join(ws, "lib", ".git"), "gitdir: ../.git/modules/lib\n")
			write(t, filepath.Join(ws, ".gitignore"), "private/\n*.key\n")
			write(t, filepath.Join(ws, "lib", "server.key"), "hunter2\n")
		}},
		{"nested repository with its own .gitignore", true, func(t *testing.T, ws string) {
			mkdir(t, filepath.Join(ws, ".git"))
			mkdir(t, filepath.Join(ws, "lib", ".git"))
			write(t, filepath.Join(ws, "lib", ".gitignore"), "*.key\n")
			write(t, filepath.Join(ws, "lib", "server.key"), "hunter2\n")
		}},
		{"whitelist in .ignore above a .gitignore", false, func(t *testing.T, ws string) {
			mkdir(t, filepath.Join(ws, ".git"))
			write(t, filepath.Join(ws, "docs", ".ignore"), "!*.key\n")
			write(t, filepath.Join(ws, "docs", "sub", ".gitignore"), "*.key\n")
			write(t, filepath.Join(ws, "docs", "sub", "a.key"), "hunter2\n")
		}},
		{"whitelist of a hidden file in .git/info/exclude", false, func(t *testing.T, ws string) {
			write(t, filepath.Join(ws, ".git", "info", "exclude"), "!.env\n")
			write(t, filepath.Join(ws, "src", ".env"), "hunter2\n")
		}},
	} {
		t.Run(world.name, func(t *testing.T) {
			env := secretWorkspace(t)
			ws := env.Workspace
			// The key rg skips only when .gitignore applies; the .env
			// rg skips as hidden.
			if err := os.Rename(filepath.Join(ws, "certs"), filepath.Join(ws, "private")); err != nil {
				t.Fatal(err)
			}
			write(t, filepath.Join(ws, "src/main.go"), "package main // public\n")
			write(t, filepath.Join(ws, ".gitignore"), "private/\n")
			world.setup(t, ws)
			c := mustNew(t, Config{})
			if v := c.Check(commands[0], env); v.Allow != world.allow {
				t.Errorf("%q: allow=%v (%s), want %v", commands[0], v.Allow, v.Reason, world.allow)
			}
			home := t.TempDir() // no global gitignore
			for _, cmd := range commands {
				if !c.Check(cmd, env).Allow {
					continue
				}
				run := exec.Command("bash", "--noprofile", "--norc", "-c", cmd)
				run.Dir = ws
				run.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + home}
				out, _ := run.CombinedOutput()
				if strings.Contains(string(out), "hunter2") {
					t.Errorf("%q was allowed and printed a secret:\n%s", cmd, out)
				}
			}
		})
	}
}

// A .gitignore above the search root counts (rg applies it), and one in a
// parent whose "!" line whitelists makes the walk skip nothing.
func TestRgParentIgnoreFiles(t *testing.T) {
	env := secretWorkspace(t)
	ws := env.Workspace
	c := mustNew(t, Config{})
	write(t, filepath.Join(ws, "src", ".env"), "hunter2\n")
	runCases(t, c, env, []tcase{{"rg -n hunter2 src", true, "", ""}}) // hidden: skipped
	write(t, filepath.Join(ws, ".ignore"), "!.env\n")
	runCases(t, c, env, []tcase{{"rg -n hunter2 src", false, "whitelists hidden files", ""}})
	write(t, filepath.Join(ws, ".ignore"), "!*.key\n")
	write(t, filepath.Join(ws, "src", ".ignore"), "*.key\n")
	write(t, filepath.Join(ws, "src", "a.key"), "hunter2\n")
	runCases(t, c, env, []tcase{{"rg -n hunter2 src", false, "src/a.key", ""}})
}

// A recursive reader that opens .git/config, .gitmodules or a bare
// repository's config asks when it holds a credential (a token in a
// remote URL); rg, which skips hidden names, does not open them. Run for
// real: whatever is allowed prints no token.
func TestRecursiveReadersAndGitCredentials(t *testing.T) {
	needRg(t)
	genv := gitEnv(t)
	env := secretWorkspace(t)
	ws := env.Workspace
	for _, p := range []string{".env", "certs/server.key"} {
		if err := os.Remove(filepath.Join(ws, p)); err != nil {
			t.Fatal(err)
		}
	}
	git(t, genv, ws, "init", "-q")
	c := mustNew(t, Config{})
	commands := []string{"grep -rn github .", "rg -n github", "rg -n github -g '*'", "rg -n github -g '*.md'", "grep -rn --include='*.go' github ."}
	check := func(want map[string]bool) {
		t.Helper()
		for _, cmd := range commands {
			v := c.Check(cmd, env)
			if v.Allow != want[cmd] {
				t.Errorf("%q: allow=%v (%s), want %v", cmd, v.Allow, v.Reason, want[cmd])
			}
			if !v.Allow {
				continue
			}
			run := exec.Command("bash", "--noprofile", "--norc", "-c", cmd)
			run.Dir = ws
			if out, _ := run.CombinedOutput(); strings.Contains(string(out), "hunter2") {
				t.Errorf("%q was allowed and printed a credential:\n%s", cmd, out)
			}
		}
	}
	all := map[string]bool{}
	for _, cmd := range commands {
		all[cmd] = true
	}
	check(all) // no credential anywhere
	git(t, genv, ws, "config", "remote.origin.url", "https://u:ghp_hunter2@github.com/o/r.git")
	check(map[string]bool{"rg -n github": true, "rg -n github -g '*.md'": true, "grep -rn --include='*.go' github .": true})
	git(t, genv, ws, "config", "remote.origin.url", "https://github.com/o/r.git")
	write(t, filepath.Join(ws, ".gitmodules"), "[submodule \"lib\"]\n\tpath = lib\n\turl = https://u:ghp_hunter2@github.com/o/lib.git\n")
	check(map[string]bool{"rg -n github": true, "rg -n github -g '*.md'": true, "grep -rn --include='*.go' github .": true})
}
