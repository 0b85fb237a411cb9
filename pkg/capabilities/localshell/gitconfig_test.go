package localshell

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// gitRepo makes a repository with one committed file, isolated from the
// machine's global and system git config.
func gitRepo(t *testing.T) (repo string, env []string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	repo = t.TempDir()
	env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+filepath.Join(t.TempDir(), "gitconfig"),
		"GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@example.com", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@example.com")
	for _, args := range [][]string{{"init", "-q"}, {"add", "f.txt"}, {"commit", "-qm", "one"}} {
		if args[0] == "add" {
			require.NoError(t, os.WriteFile(filepath.Join(repo, "f.txt"), []byte("old\n"), 0o600))
		}
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = repo, env
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
	}
	return repo, env
}

func execText(t *testing.T, sh *Shell, command string) (string, int) {
	t.Helper()
	res, err := sh.Execute(t.Context(), command, capabilities.ExecOptions{ThreadID: "t", RequestID: "r"})
	require.NoError(t, err)
	var b strings.Builder
	for _, l := range append(append([]capabilities.OutputLine{}, res.Head...), res.Tail...) {
		b.WriteString(l.Text + "\n")
	}
	return b.String(), res.ExitCode
}

// Regression: the hardened environment used to set diff.external to "",
// which made every `git diff` die with "cannot run" and exit 128.
func TestGitDiffWorksInTheHardenedEnv(t *testing.T) {
	repo, env := gitRepo(t)
	require.NoError(t, os.WriteFile(filepath.Join(repo, "f.txt"), []byte("new\n"), 0o600))
	sh := New(Options{LogRoot: t.TempDir(), Cwd: repo, Env: env})
	out, code := execText(t, sh, "git diff")
	assert.Equal(t, 0, code, out)
	assert.Contains(t, out, "+new")
	out, code = execText(t, sh, "git add f.txt && git diff --cached --stat && git diff --cached")
	assert.Equal(t, 0, code, out)
	assert.Contains(t, out, "f.txt | 2 +-")
	assert.Contains(t, out, "-old")
}

// A repository's own config asking `git log` to verify signatures with a
// program of its choice runs nothing: log.showSignature is overridden.
func TestGitLogDoesNotRunThePlantedSignatureProgram(t *testing.T) {
	repo, env := gitRepo(t)
	marker := filepath.Join(t.TempDir(), "marker")
	prog := filepath.Join(t.TempDir(), "fake-gpg")
	require.NoError(t, os.WriteFile(prog, []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o700))
	// A signed commit: git runs gpg.program only for those.
	script := `tree=$(git write-tree) && sha=$(printf 'tree %s\nparent %s\nauthor a <a@example.com> 0 +0000\ncommitter a <a@example.com> 0 +0000\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n x\n -----END PGP SIGNATURE-----\n\nsigned\n' "$tree" "$(git rev-parse HEAD)" | git hash-object -t commit -w --stdin) && git update-ref HEAD "$sha" && git config log.showSignature true && git config gpg.program "$1"`
	cmd := exec.Command("sh", "-c", script, "sh", prog)
	cmd.Dir, cmd.Env = repo, env
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	// The world is really hostile: plain git runs the program.
	plain := exec.Command("git", "log", "-1")
	plain.Dir, plain.Env = repo, env
	require.NoError(t, plain.Run())
	require.FileExists(t, marker)
	require.NoError(t, os.Remove(marker))

	sh := New(Options{LogRoot: t.TempDir(), Cwd: repo, Env: env})
	for _, c := range []string{"git log", "git log -p", "git show"} {
		text, code := execText(t, sh, c)
		assert.Equal(t, 0, code, text)
		assert.Contains(t, text, "signed", c)
		assert.NoFileExists(t, marker, c)
	}
}

// plantNestedRepo makes, inside repo, a nested repository whose own
// config names a clean filter that touches marker and whose
// info/attributes applies it to every file, registers it in repo's
// index as a gitlink (its git directory in .git/modules/lib behind a
// .git file when asModule), and leaves its file changed, so that git
// re-cleans it when it looks inside: what a confined script can leave
// behind for the next unconfined git command.
func plantNestedRepo(t *testing.T, repo string, env []string, marker string, asModule bool) {
	t.Helper()
	script := `set -e
cd "$1"
mkdir lib && cd lib && git init -q && echo one > f.txt && git add f.txt && git commit -qm lib
git config filter.x.clean "touch $2; cat" && git config filter.x.smudge cat
echo '* filter=x' > .git/info/attributes
cd ..
if [ "$3" = module ]; then
	mkdir -p .git/modules && mv lib/.git .git/modules/lib
	echo 'gitdir: ../.git/modules/lib' > lib/.git
	git --git-dir=.git/modules/lib config core.worktree ../../../lib
fi
git update-index --add --cacheinfo "160000,$(git -C lib rev-parse HEAD),lib"
git commit -qm 'add lib'
echo two > lib/f.txt && touch -d '2000-01-01' lib/f.txt
rm -f "$2"`
	mode := "gitlink"
	if asModule {
		mode = "module"
	}
	cmd := exec.Command("sh", "-c", script, "sh", repo, marker, mode)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
}

// A nested repository planted as a submodule runs none of its filters on
// the shell's git commands: the hardened env stops git from recursing
// into submodules (git 2.39 runs `git status` inside each populated
// gitlink for status and diff otherwise).
func TestGitDoesNotRecurseIntoPlantedSubmodules(t *testing.T) {
	for _, asModule := range []bool{false, true} {
		repo, env := gitRepo(t)
		marker := filepath.Join(t.TempDir(), "marker")
		plantNestedRepo(t, repo, env, marker, asModule)
		// The world is really hostile: plain git runs the filter.
		plain := exec.Command("git", "status")
		plain.Dir, plain.Env = repo, env
		out, err := plain.CombinedOutput()
		require.NoError(t, err, string(out))
		require.FileExists(t, marker, "module=%v", asModule)
		require.NoError(t, os.Remove(marker))

		sh := New(Options{LogRoot: t.TempDir(), Cwd: repo, Env: env})
		for _, c := range []string{"git status", "git status --porcelain", "git diff", "git diff --stat",
			"git diff HEAD", "git log -p", "git show", "git diff --submodule=log HEAD~1", "git commit --dry-run -a"} {
			text, _ := execText(t, sh, c)
			assert.NoFileExists(t, marker, "module=%v: %s\n%s", asModule, c, text)
		}
	}
}
