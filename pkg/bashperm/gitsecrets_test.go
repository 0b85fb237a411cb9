package bashperm

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// confinedEnv adds a sandbox policy to env: writes inside the workspace,
// reads everywhere but the home's .ssh.
func confinedEnv(env Env) Env {
	ws, _ := filepath.EvalSymlinks(env.Workspace)
	env.Writable = func(p string) bool { return p == ws || strings.HasPrefix(p, ws+"/") }
	env.Readable = func(p string) bool { return !strings.HasPrefix(p, filepath.Join(env.Home, ".ssh")) }
	return env
}

// deletedSecretRepo is a repository that committed id_rsa and .env, then
// deleted both: the work tree holds no secret, the history does. It
// returns the environment, git's environment and the blob id of id_rsa.
func deletedSecretRepo(t *testing.T) (Env, []string, string) {
	t.Helper()
	env, genv := gitWorkspace(t)
	ws := env.Workspace
	write(t, filepath.Join(ws, "id_rsa"), "-----BEGIN PRIVATE KEY----- hunter2\n")
	write(t, filepath.Join(ws, ".env"), "TOKEN=hunter2\n")
	git(t, genv, ws, "add", "-f", "id_rsa", ".env")
	git(t, genv, ws, "commit", "-qm", "oops")
	blob := strings.TrimSpace(git(t, genv, ws, "rev-parse", "HEAD:id_rsa"))
	git(t, genv, ws, "rm", "-q", "id_rsa", ".env")
	git(t, genv, ws, "commit", "-qm", "remove the key")
	git(t, genv, ws, "branch", "topic", "HEAD~1")
	write(t, filepath.Join(ws, "ids.txt"), blob+"\n")
	return env, genv, blob
}

// Finding 5: every route from git's object store to the output or the
// work tree asks, without a sandbox and within one.
func TestGitHistorySecretsByEveryRoute(t *testing.T) {
	env, genv, blob := deletedSecretRepo(t)
	git(t, genv, env.Workspace, "tag", "keyblob", blob)
	c := mustNew(t, Config{})
	asks := []string{
		// git show prints any object, whatever its flags.
		"git show -s " + blob,
		"git show --stat " + blob,
		"git show --name-only " + blob,
		"git show --no-patch " + blob,
		"git show --oneline -s " + blob[:10],
		"git show " + blob + " -- src",
		"git show -s keyblob",
		"git show --stat HEAD " + blob,
		// git diff of a blob against a file or another blob.
		"git diff " + blob + " -- src/main.go",
		"git diff " + blob + " HEAD:README.md --",
		"git diff HEAD~1: HEAD~2:",
		"git diff HEAD~1:. HEAD:.",
		// Printers.
		"git archive HEAD~1 | tar xO",
		"git archive --format=tar topic id_rsa",
		"git format-patch --stdout HEAD~2",
		"git format-patch -1 HEAD~1",
		"git grep hunter2 HEAD~1",
		"git grep --cached hunter2",
		"git grep -e hunter2 topic -- src",
		"git cat-file -p " + blob,
		"git cat-file blob " + blob,
		"git cat-file --batch < ids.txt",
		"git diff-tree -p HEAD",
		"git diff-tree -r -p HEAD~1 HEAD",
		"git whatchanged -p",
		"git reflog -p",
		"git log -p --all",
		"git log --all --format=%H -p",
		"git log -p --follow -- src/main.go",
		"git log -p --full-diff -- src",
		"git log -L1,2:README.md",
		"git log -S hunter2 --oneline",
		"git log -Ghunter2",
		"git log --word-diff",
		"git stash show -p",
		"git stash show",
		"git for-each-ref --format='%(raw)'",
		"git tag -l --format='%(raw)'",
		"git branch --format '%(raw)'",
		"git notes show",
		"git fast-export --all",
		"git bundle create x.bundle --all",
		"git status -v",
		// What writes another revision's files into the work tree.
		"git checkout HEAD~1",
		"git checkout HEAD~1 && cat README.md",
		"git checkout topic -- .",
		"git switch --detach HEAD~1",
		"git switch topic",
		"git restore --source HEAD~1 .",
		"git reset --hard HEAD~1",
		"git reset HEAD~1",
		"git stash apply",
		"git stash pop",
		"git cherry-pick topic",
		"git merge topic",
		"git rebase topic",
		"git revert HEAD",
		"git read-tree -u --reset HEAD~1",
		"git checkout-index -a -f",
		"git worktree add wt HEAD~1",
		"git bisect start",
		"git clone . copy",
		// Interactive forms that show differences.
		"git add -p",
		"git commit -v",
		"git stash -p",
		// Through git's global options and shells.
		"git -C . show -s " + blob,
		"git -C src cat-file -p " + blob,
		"git --no-pager -c color.ui=never show --stat " + blob,
		"git --git-dir=.git show -s " + blob,
		"bash -c 'git cat-file -p " + blob + " | cat'",
		// Unknown subcommands and words known only at run time.
		"git frobnicate",
		"git $(echo show) -s " + blob,
		"git show -s $(cat ids.txt)",
		"git log $FLAGS",
	}
	for _, env := range []Env{env, confinedEnv(env)} {
		for _, cmd := range asks {
			v := c.Check(cmd, env)
			if v.Allow || v.Sandbox {
				t.Errorf("%q (sandbox %v): %s, want ask", cmd, env.Writable != nil, verdictName(v))
			}
		}
	}
	// Confined, the reason is the history.
	for _, cmd := range []string{"git show -s " + blob, "git cat-file -p " + blob, "git archive HEAD~1 | tar xO",
		"git checkout HEAD~1", "git grep hunter2 HEAD~1", "git log -S hunter2 --oneline", "git frobnicate"} {
		if v := c.Check(cmd, confinedEnv(env)); !strings.Contains(v.Reason, "once tracked a secret") {
			t.Errorf("%q: reason %q does not name the history", cmd, v.Reason)
		}
	}
}

// What prints names, ids, statistics or messages, or a file by a name
// that is not secret, runs as before in such a repository.
func TestGitHistorySecretsOrdinaryForms(t *testing.T) {
	env, genv, blob := deletedSecretRepo(t)
	commit := strings.TrimSpace(git(t, genv, env.Workspace, "rev-parse", "HEAD~1"))
	c := mustNew(t, Config{})
	runCases(t, c, env, []tcase{
		{"git status", true, "", ""},
		{"git status --short", true, "", ""},
		{"git log --oneline", true, "", ""},
		{"git log --oneline --graph --all", true, "", ""},
		{"git log --stat -3", true, "", ""},
		{"git log --raw --no-abbrev --all", true, "", ""},
		{"git log -n 5 --format='%H %s' --author=a", true, "", ""},
		{"git log -p -- src", true, "", ""},
		{"git log -p -S main -- src", true, "", ""},
		{"git diff", false, "name the paths", ""},
		{"git diff --stat", true, "", ""},
		{"git diff --stat HEAD~2 HEAD", true, "", ""},
		{"git diff --name-only " + blob + " HEAD:README.md", true, "", ""},
		{"git diff HEAD~2 HEAD -- src", true, "", ""},
		{"git diff HEAD~2..HEAD -- README.md", true, "", ""},
		{"git diff topic HEAD -- src", true, "", ""},
		{"git diff HEAD~1:src HEAD:src", true, "", ""},
		{"git diff HEAD~2 HEAD -- .", false, "covers", ""},
		{"git show HEAD:src/main.go", true, "", ""},
		{"git show HEAD~1:README.md", true, "", ""},
		{"git show -s HEAD", true, "", ""},
		{"git show --stat", true, "", ""},
		{"git show --stat HEAD~1", true, "", ""},
		{"git show --name-status topic", true, "", ""},
		{"git show -s " + commit, true, "", ""},
		{"git show " + commit + " -- src", true, "", ""},
		{"git show " + commit, false, "once tracked a secret", ""},
		{"git show HEAD~1:id_rsa", false, "secret", ""},
		{"git branch -a", true, "", ""},
		{"git blame README.md", true, "", ""},
		{"git stash list", true, "", ""},
	})
	runVerdicts(t, c, confinedEnv(env), []vcase{
		{"git status", "allow", ""},
		{"git log --oneline", "allow", ""},
		{"git rev-list --all --objects > objs.txt", "sandbox", ""},
		{"git ls-tree -r HEAD~1 > tree.txt", "sandbox", ""},
		{"git ls-files -s | head", "sandbox", ""},
		{"git rev-parse HEAD~1:id_rsa > x", "ask", "secret"},
		{"git describe --always > d.txt", "sandbox", ""},
		{"git add README.md && git commit -qm x", "sandbox", ""},
		{"git commit -am 'fix the parser'", "sandbox", ""},
		{"git checkout -b feature", "sandbox", ""},
		{"git switch -c feature", "sandbox", ""},
		{"git stash", "sandbox", ""},
		{"git stash push -m wip", "sandbox", ""},
		{"git fetch origin", "sandbox", ""},
		{"git mv README.md README.txt", "sandbox", ""},
		{"git tag v1", "sandbox", ""},
		{"git for-each-ref --format='%(refname) %(objectname)' > refs.txt", "sandbox", ""},
		{"git show " + commit + " -- src > out.txt", "sandbox", ""},
		{"git log -p -- src > log.txt", "sandbox", ""},
	})
}

// In a repository whose history holds no secret nothing changes: the
// same commands run confined.
func TestGitWithoutSecretHistoryUnchanged(t *testing.T) {
	env, genv := gitWorkspace(t)
	write(t, filepath.Join(env.Workspace, "src/util.go"), "package main\n")
	git(t, genv, env.Workspace, "add", "src/util.go")
	git(t, genv, env.Workspace, "commit", "-qm", "two")
	blob := strings.TrimSpace(git(t, genv, env.Workspace, "rev-parse", "HEAD:README.md"))
	c := mustNew(t, Config{})
	for _, cmd := range []string{"git show -s " + blob, "git cat-file -p " + blob, "git checkout HEAD~1",
		"git grep package HEAD~1", "git archive HEAD | tar t", "git log -p --all > log.txt", "git frobnicate"} {
		if v := c.Check(cmd, confinedEnv(env)); !v.Sandbox && !v.Allow {
			t.Errorf("%q: %s (%s), want it to run", cmd, verdictName(v), v.Reason)
		}
	}
	runCases(t, c, env, []tcase{
		{"git show -s " + blob, true, "", ""},
		{"git show", true, "", ""},
		{"git log -p", true, "", ""},
		{"git diff " + blob + " -- src/main.go", true, "", ""},
	})
}

func TestGitRevisionSpellings(t *testing.T) {
	for rev, want := range map[string]bool{
		"HEAD~1": true, "HEAD^": true, "main^2": true, "HEAD~": true, "x^{commit}": true, "x^{tree}": true,
		":/fix": true, "HEAD^{/fix}": true, "HEAD": false, "main": false, "abc123": false, "v1^{}": false,
		"x^{blob}": false, "HEAD@{1}": false, "~": false,
	} {
		if got := spelledCommit(rev); got != want {
			t.Errorf("spelledCommit(%q) = %v", rev, got)
		}
	}
	for rev, want := range map[string]string{"HEAD:a/b": "a/b", ":a": "a", ":2:a": "a", "HEAD@{10:00}": "",
		"HEAD@{10:00}:x": "x", ":/msg": "", "main": ""} {
		got, ok := objectPath(rev)
		if got != want || ok != (want != "") {
			t.Errorf("objectPath(%q) = %q, %v", rev, got, ok)
		}
	}
	for rev, want := range map[string]string{"a..b": "a b", "..b": "HEAD b", "a...": "a HEAD", "^a": "a",
		"a^!": "a", "a^@": "a", "a^-2": "a", "a": "a"} {
		if got := strings.Join(revisionEnds(rev), " "); got != want {
			t.Errorf("revisionEnds(%q) = %q", rev, got)
		}
	}
}

// credentialWorld is a repository and a home whose git configs hold
// credentials: a token in the remote URL (.git/config), sendemail's and
// imap's passwords (~/.gitconfig), an Authorization header in an
// included file and in $XDG_CONFIG_HOME/git/config.
func credentialWorld(t *testing.T) Env {
	t.Helper()
	env, genv := gitWorkspace(t)
	git(t, genv, env.Workspace, "remote", "add", "origin", "https://u:ghp_TOKEN@github.com/o/r.git")
	write(t, filepath.Join(env.Home, ".gitconfig"), "[user]\n\tname = a\n[sendemail]\n\tsmtpPass = hunter2\n"+
		"[imap]\n\tpass = hunter3\n[include]\n\tpath = ~/.gitconfig.local\n")
	write(t, filepath.Join(env.Home, ".gitconfig.local"), "[github]\n\tuser = a\n")
	xdg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", xdg)
	write(t, filepath.Join(xdg, "git", "config"), "[http \"https://example.com/\"]\n\textraHeader = Authorization: Bearer x\n")
	return env
}

// Finding 9: commands that print credentials from git's configuration,
// and direct reads of a config file holding one, ask.
func TestGitConfigCredentialsAsk(t *testing.T) {
	env := credentialWorld(t)
	c := mustNew(t, Config{})
	asks := []struct{ cmd, reason string }{
		{"git config --get sendemail.smtpPass", ".gitconfig (sendemail.smtppass)"},
		{"git config --get imap.pass", "imap.pass"},
		{"git config sendemail.smtppass", ""},
		{"git config --global --get sendemail.smtpPass", ".gitconfig"},
		{"git config --get-all imap.pass", "imap.pass"},
		{"git config --show-origin --get imap.pass", "imap.pass"},
		{"git config get sendemail.smtpPass", ""},
		{"git config --list", ""},
		{"git config -l", ""},
		{"git config list --show-origin", ""},
		{"git config --get-regexp url", ""},
		{"git config --get-urlmatch http.extraheader https://example.com/x", ""},
		{"git config remote.origin.url", ""},
		{"git config --get http.https://example.com/.extraheader", ""},
		{"git config -f .git/config --list", ""},
		{"git remote -v", ""},
		{"git remote --verbose", ""},
		{"git remote get-url origin", ""},
		{"git remote show origin", ""},
		{"git ls-remote origin", ""},
		{"git var -l", ""},
		{"git credential fill < /dev/null", ""},
		{"cat .git/config", "credential"},
		{"grep url .git/config", "credential"},
		{"head -n 20 .git/config", "credential"},
		{"sed -n p .git/config", ""},
		{"cat .git/./config", "credential"},
		{"grep -r ghp_ .git", ""},
		{"cat " + filepath.Join(env.Home, ".gitconfig"), ""},
	}
	for _, e := range []Env{env, confinedEnv(env)} {
		for _, tc := range asks {
			v := c.Check(tc.cmd, e)
			if v.Allow || v.Sandbox {
				t.Errorf("%q (sandbox %v): %s, want ask", tc.cmd, e.Writable != nil, verdictName(v))
			} else if !strings.Contains(v.Reason, tc.reason) {
				t.Errorf("%q: reason %q does not mention %q", tc.cmd, v.Reason, tc.reason)
			}
		}
	}
	for _, cmd := range []string{"git config --get imap.pass", "git remote -v", "git config --list", "cat .git/config"} {
		if v := c.Check(cmd, confinedEnv(env)); !strings.Contains(v.Reason, "credential") {
			t.Errorf("%q: confined reason %q does not name the credential", cmd, v.Reason)
		}
	}
	runCases(t, c, env, []tcase{
		{"git config --get user.name", true, "", ""},
		{"git config user.name", true, "", ""},
		{"git status", true, "", ""},
		{"cat README.md", true, "", ""},
	})
	runVerdicts(t, c, confinedEnv(env), []vcase{
		{"git config --get user.name > name.txt", "sandbox", ""},
		{"git remote > remotes.txt", "sandbox", ""},
		{"git commit -qm x", "sandbox", ""},
	})
}

// The same commands run as before when no config holds a credential.
func TestGitConfigWithoutCredentials(t *testing.T) {
	env, genv := gitWorkspace(t)
	git(t, genv, env.Workspace, "remote", "add", "origin", "git@github.com:o/r.git")
	write(t, filepath.Join(env.Home, ".gitconfig"), "[user]\n\tname = a\n[credential]\n\thelper = store\n")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	c := mustNew(t, Config{})
	runCases(t, c, env, []tcase{
		{"git config --get user.name", true, "", ""},
		{"cat .git/config", true, "", ""},
		{"grep url .git/config", true, "", ""},
	})
	runVerdicts(t, c, confinedEnv(env), []vcase{
		{"git config --list > cfg.txt", "sandbox", ""},
		{"git remote -v > r.txt", "sandbox", ""},
		{"git remote get-url origin > r.txt", "sandbox", ""},
		{"cat .git/config > c.txt", "sandbox", ""},
	})
}

// A config file the parser cannot read asks for reads of every variable,
// since it could hide a credential.
func TestGitConfigUnreadableAsks(t *testing.T) {
	env, _ := gitWorkspace(t)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	write(t, filepath.Join(env.Home, ".gitconfig"), "[user\n\tname = a\n")
	c := mustNew(t, Config{})
	runVerdicts(t, c, confinedEnv(env), []vcase{
		{"git config --list > x", "ask", "could not be checked"},
	})
}

// The credentials the checker finds are those git prints: a sanity
// check of the world above against git itself.
func TestGitConfigCredentialWorldIsReal(t *testing.T) {
	env := credentialWorld(t)
	cmd := exec.Command("git", "config", "--list")
	cmd.Dir = env.Workspace
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_CONFIG_GLOBAL=") && !strings.HasPrefix(kv, "HOME=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "HOME="+env.Home)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, want := range []string{"ghp_TOKEN", "hunter2", "hunter3", "Bearer x"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("git config --list does not print %s:\n%s", want, out)
		}
	}
}

// Regression: a value-taking global option at the end of a confined git
// command (git -c, git --git-dir) made the check slice past argv.
func TestConfinedGitOptionAtTheEnd(t *testing.T) {
	env, _, _ := deletedSecretRepo(t)
	c := mustNew(t, Config{})
	for _, cmd := range []string{"git -c", "git --git-dir", "git -p --work-tree", "git -C"} {
		if v := c.Check(cmd, confinedEnv(env)); strings.HasPrefix(v.Reason, "internal error") {
			t.Errorf("%q: %s", cmd, v.Reason)
		}
	}
}
