package bashperm

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/localshell"
)

// gitEnv isolates git from the machine's global and system config.
func gitEnv(t testing.TB) []string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	global := filepath.Join(t.TempDir(), "gitconfig")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	return append(os.Environ(), "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@example.com",
		"GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@example.com")
}

func git(t testing.TB, env []string, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// gitWorkspace is a workspace that is a repository with a few commits
// and a modified file; .env exists but is ignored, never tracked.
func gitWorkspace(t testing.TB) (Env, []string) {
	t.Helper()
	env := gitEnv(t)
	ws := t.TempDir()
	write(t, filepath.Join(ws, "README.md"), "readme\n")
	write(t, filepath.Join(ws, "src/main.go"), "package main\n")
	write(t, filepath.Join(ws, ".gitignore"), ".env\n")
	write(t, filepath.Join(ws, ".env"), "TOKEN=hunter2\n")
	git(t, env, ws, "init", "-q")
	git(t, env, ws, "add", ".")
	git(t, env, ws, "commit", "-qm", "one")
	write(t, filepath.Join(ws, "README.md"), "readme 2\n")
	return Env{Cwd: ws, Workspace: ws, Home: t.TempDir()}, env
}

// plantedCommands are allowed git commands that a hostile repository
// config can turn into running a program.
var plantedCommands = []string{"git status", "git diff", "git diff --stat", "git diff --cached", "git diff --no-ext-diff",
	"git log", "git log -p", "git show", "git log --oneline -3", "git blame README.md", "git stash list",
	"git branch -a", "git config --get user.name"}

func TestPlantedRepositoryConfigAsks(t *testing.T) {
	c := mustNew(t, Config{})
	for _, tc := range []struct{ name, config, attributes string }{
		{"filter", "[filter \"x\"]\n\tclean = touch MARK\n\tsmudge = touch MARK\n", "*.md filter=x\n"},
		{"filter process", "[filter \"x\"]\n\tprocess = touch MARK\n", "*.md filter=x\n"},
		{"textconv", "[diff \"x\"]\n\ttextconv = touch MARK;\n", "*.md diff=x\n"},
		{"diff command", "[diff \"x\"]\n\tcommand = touch MARK;\n", "*.md diff=x\n"},
		{"external diff", "[diff]\n\texternal = touch MARK;\n", ""},
		{"gpg", "[log]\n\tshowSignature = true\n[gpg]\n\tprogram = touch MARK\n", ""},
		{"gpg ssh", "[gpg \"ssh\"]\n\tprogram = touch MARK\n", ""},
		{"fsmonitor", "[core]\n\tfsmonitor = touch MARK\n", ""},
		{"pager", "[pager]\n\tlog = touch MARK\n", ""},
		{"include", "[include]\n\tpath = ../evil.cfg\n", ""},
		{"includeIf", "[includeIf \"gitdir:/\"]\n\tpath = ../evil.cfg\n", ""},
		{"old-style section", "[diff.x]\n\ttextconv = touch MARK\n", "*.md diff=x\n"},
		{"same line", "[filter \"x\"] clean = touch MARK\n", "*.md filter=x\n"},
		{"continued value", "[core]\n\tbare = false\\\n\n\tfsmonitor = touch MARK\n", ""},
		{"case", "[FILTER \"x\"]\n\tCLEAN = touch MARK\n", "*.md filter=x\n"},
		{"unparsable", "[core\n\tfsmonitor = touch MARK\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env, _ := gitWorkspace(t)
			cfg := filepath.Join(env.Workspace, ".git", "config")
			data, err := os.ReadFile(cfg)
			if err != nil {
				t.Fatal(err)
			}
			write(t, cfg, string(data)+tc.config)
			if tc.attributes != "" {
				write(t, filepath.Join(env.Workspace, ".gitattributes"), tc.attributes)
			}
			for _, cmd := range plantedCommands {
				if v := c.Check(cmd, env); v.Allow {
					t.Errorf("%s: %q allowed", tc.name, cmd)
				} else if !strings.Contains(v.Reason, ".git/config") {
					t.Errorf("%s: %q: reason %q does not name the config", tc.name, cmd, v.Reason)
				}
			}
		})
	}
}

// core.hooksPath alone (Husky writes it) does not ask: the shell sends
// hooks to /dev/null whatever the repository says.
func TestHooksPathAloneDoesNotAsk(t *testing.T) {
	c := mustNew(t, Config{})
	env, _ := gitWorkspace(t)
	cfg := filepath.Join(env.Workspace, ".git", "config")
	data, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	write(t, cfg, string(data)+"[core]\n\thooksPath = .husky/_\n")
	for _, cmd := range plantedCommands {
		if v := c.Check(cmd, env); !v.Allow {
			t.Errorf("%q asks: %s", cmd, v.Reason)
		}
	}
}

// The planted world for real: a hostile .git/config and .gitattributes
// whose drivers create a marker. Plain git runs them; the checker asks;
// and what the hardened shell's overrides cover (fsmonitor, hooks,
// signature display) creates no marker even when run.
func TestPlantedDriversNeverRunUnasked(t *testing.T) {
	env, genv := gitWorkspace(t)
	ws := env.Workspace
	marker := filepath.Join(t.TempDir(), "MARK")
	prog := filepath.Join(t.TempDir(), "driver")
	write(t, prog, "#!/bin/sh\ntouch "+marker+"\ncat\n")
	if err := os.Chmod(prog, 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, genv, ws, "config", "filter.x.clean", prog)
	git(t, genv, ws, "config", "diff.x.textconv", prog)
	write(t, filepath.Join(ws, ".gitattributes"), "*.md filter=x diff=x\n")
	plain := exec.Command("git", "diff")
	plain.Dir, plain.Env = ws, genv
	if err := plain.Run(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the planted world is not hostile: plain git diff did not run the driver (%v)", err)
	}
	if err := os.Remove(marker); err != nil {
		t.Fatal(err)
	}
	c := mustNew(t, Config{})
	for _, cmd := range plantedCommands {
		if v := c.Check(cmd, env); v.Allow {
			t.Errorf("%q allowed in a repository with planted drivers", cmd)
		}
	}

	// Overridable keys: the shell's environment wins over the repository.
	git(t, genv, ws, "config", "--unset", "filter.x.clean")
	git(t, genv, ws, "config", "--unset", "diff.x.textconv")
	git(t, genv, ws, "config", "core.fsmonitor", prog)
	git(t, genv, ws, "config", "core.hooksPath", filepath.Dir(prog))
	sh := localshell.New(localshell.Options{LogRoot: t.TempDir(), Cwd: ws, Env: genv})
	for _, cmd := range []string{"git status", "git diff", "git log -p", "git show"} {
		if v := c.Check(cmd, env); v.Allow {
			t.Errorf("%q allowed with a planted fsmonitor", cmd)
		}
		res, err := sh.Execute(t.Context(), cmd, capabilities.ExecOptions{ThreadID: "t", RequestID: "r"})
		if err != nil || res.ExitCode != 0 {
			t.Fatalf("%s: %v %+v", cmd, err, res)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Errorf("%s through the hardened shell ran the planted program", cmd)
		}
	}
}

func TestGitInACleanRepositoryIsAllowed(t *testing.T) {
	env, _ := gitWorkspace(t)
	write(t, filepath.Join(env.Workspace, ".gitattributes"), "*.md diff=x\n") // no such driver: harmless
	runCases(t, mustNew(t, Config{}), env, []tcase{
		{"git status", true, "", ""},
		{"git diff", true, "", ""},
		{"git log -p", true, "", ""},
		{"git show", true, "", ""},
		{"git diff HEAD~0 HEAD", true, "", ""},
		{"git status", true, "", "src"},
	})
}

func TestRedirectedRepositoriesAsk(t *testing.T) {
	c := mustNew(t, Config{})
	t.Run("gitdir file pointing outside", func(t *testing.T) {
		other, _ := gitWorkspace(t)
		ws := t.TempDir()
		write(t, filepath.Join(ws, ".git"), "gitdir: "+filepath.Join(other.Workspace, ".git")+"\n")
		env := Env{Cwd: ws, Workspace: ws}
		for _, cmd := range []string{"git log -p", "git status", "git show"} {
			if v := c.Check(cmd, env); v.Allow || !strings.Contains(v.Reason, "outside the workspace") {
				t.Errorf("%q: %+v", cmd, v)
			}
		}
	})
	t.Run("relative gitdir through a symlink", func(t *testing.T) {
		other, _ := gitWorkspace(t)
		ws := t.TempDir()
		if err := os.Symlink(other.Workspace, filepath.Join(ws, "inner")); err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(ws, ".git"), "gitdir: inner/.git\n")
		if v := c.Check("git log -p", Env{Cwd: ws, Workspace: ws}); v.Allow {
			t.Errorf("allowed: %+v", v)
		}
	})
	t.Run("core.worktree pointing outside", func(t *testing.T) {
		env, genv := gitWorkspace(t)
		outside := t.TempDir()
		git(t, genv, env.Workspace, "config", "core.worktree", outside)
		if v := c.Check("git diff", env); v.Allow || !strings.Contains(v.Reason, "work tree") {
			t.Errorf("allowed: %+v", v)
		}
	})
	t.Run("repository above the workspace", func(t *testing.T) {
		env, _ := gitWorkspace(t)
		sub := filepath.Join(env.Workspace, "src")
		if v := c.Check("git log -p", Env{Cwd: sub, Workspace: sub}); v.Allow || !strings.Contains(v.Reason, "outside the workspace") {
			t.Errorf("allowed: %+v", v)
		}
	})
	t.Run("linked worktree of a repository elsewhere is allowed", func(t *testing.T) {
		main, genv := gitWorkspace(t)
		wt := filepath.Join(t.TempDir(), "wt")
		git(t, genv, main.Workspace, "worktree", "add", "-q", wt)
		env := Env{Cwd: wt, Workspace: wt}
		for _, cmd := range []string{"git status", "git log -p", "git diff"} {
			if v := c.Check(cmd, env); !v.Allow {
				t.Errorf("%q in a linked worktree: %s", cmd, v.Reason)
			}
		}
		// A .git file copied elsewhere does not match the back pointer.
		ws := t.TempDir()
		data, err := os.ReadFile(filepath.Join(wt, ".git"))
		if err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(ws, ".git"), string(data))
		if v := c.Check("git log -p", Env{Cwd: ws, Workspace: ws}); v.Allow {
			t.Errorf("a borrowed worktree .git file was allowed")
		}
	})
	t.Run("submodule with its git dir inside", func(t *testing.T) {
		env, genv := gitWorkspace(t)
		sub := filepath.Join(env.Workspace, "sub")
		gitdir := filepath.Join(env.Workspace, ".git", "modules", "sub")
		if err := os.MkdirAll(filepath.Dir(gitdir), 0o755); err != nil {
			t.Fatal(err)
		}
		git(t, genv, env.Workspace, "init", "-q", "--separate-git-dir", gitdir, sub)
		git(t, genv, sub, "config", "core.worktree", "../../../sub")
		if v := c.Check("git status", Env{Cwd: sub, Workspace: env.Workspace}); !v.Allow {
			t.Errorf("submodule: %s", v.Reason)
		}
	})
}

func TestGitHistoryWithSecretsAsks(t *testing.T) {
	env, genv := gitWorkspace(t)
	c := mustNew(t, Config{})
	if v := c.Check("git log -p", env); !v.Allow {
		t.Fatalf("no secret tracked yet: %s", v.Reason)
	}
	// Commit a key, then delete it: it stays in the history.
	write(t, filepath.Join(env.Workspace, "deploy/id_ed25519"), "PRIVATE\n")
	git(t, genv, env.Workspace, "add", "deploy/id_ed25519")
	git(t, genv, env.Workspace, "commit", "-qm", "oops")
	git(t, genv, env.Workspace, "rm", "-q", "deploy/id_ed25519")
	git(t, genv, env.Workspace, "commit", "-qm", "remove")
	runCases(t, c, env, []tcase{
		{"git log -p", false, "deploy/id_ed25519", ""},
		{"git show HEAD~1", false, "once tracked a secret", ""},
		{"git show", false, "once tracked a secret", ""},
		{"git diff HEAD~2 HEAD", false, "once tracked a secret", ""},
		{"git log -p -- deploy", false, "covers deploy/id_ed25519", ""},
		{"git log -p -- .", false, "covers", ""},
		{"git log -p -- 'src/*'", false, "pathspec", ""},
		{"git log -p -- src", true, "", ""},
		{"git log -p -- main.go", true, "", "src"},
		{"git log -p -- ../deploy", false, "covers", "src"},
		{"git log --oneline", true, "", ""},
		{"git log --stat", true, "", ""},
		{"git show --stat", true, "", ""},
		{"git diff --name-only HEAD~2", true, "", ""},
		{"git status", true, "", ""},
		{"git status -v", false, "once tracked a secret", ""},
		{"git status -sv", false, "once tracked a secret", ""},
		{"git status --verbose", false, "once tracked a secret", ""},
		{"git show HEAD:README.md", true, "", ""},
		{"git show HEAD~1:src/main.go HEAD:README.md", true, "", ""},
		{"git show HEAD~1:deploy/id_ed25519", false, "secret", ""},
		{"git show :/oops", false, "once tracked a secret", ""},
		{"git show HEAD~1 HEAD:README.md", false, "once tracked a secret", ""},
	})
	// A staged, never committed secret counts too.
	env2, genv2 := gitWorkspace(t)
	write(t, filepath.Join(env2.Workspace, "server.key"), "KEY\n")
	git(t, genv2, env2.Workspace, "add", "server.key")
	if v := c.Check("git diff --cached", env2); v.Allow || !strings.Contains(v.Reason, "server.key") {
		t.Errorf("staged secret: %+v", v)
	}
}

// BenchmarkGitRepoCheck is the per-command cost of the repository
// inspection (discovery, redirects, the repository's config; the history
// of a repository without secrets comes from the cache).
func BenchmarkGitRepoCheck(b *testing.B) {
	env, _ := gitWorkspace(b)
	c := mustNew(b, Config{})
	if v := c.Check("git log -p", env); !v.Allow {
		b.Fatal(v.Reason)
	}
	for b.Loop() {
		c.Check("git diff", env)
	}
}
