package host

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gitIn runs git in dir for a test's setup.
func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
}

// diffRepo is a repository with one committed file changed in the work
// tree, and an isolated global config (the test's own, not the user's).
func diffRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(t.TempDir(), "gitconfig"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	gitIn(t, dir, "init", "-q")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\n"), 0o644))
	gitIn(t, dir, "add", "a.txt")
	gitIn(t, dir, "commit", "-q", "-m", "first")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("two\n"), 0o644))
	return dir
}

// marker is a shell command that leaves a file behind when git runs it
// (as a filter or textconv: it passes its input through).
func marker(path string) string { return "sh -c 'touch " + path + "; cat'" }

func noFile(t *testing.T, path, msg string) {
	t.Helper()
	_, err := os.Stat(path)
	assert.True(t, os.IsNotExist(err), "%s: %s exists", msg, path)
}

// A clean repository's @diff and @staged work, path-limited too.
func TestGitDiffCleanRepository(t *testing.T) {
	dir := diffRepo(t)
	label, text := gitDiff(context.Background(), dir, false, "", 0)
	assert.Equal(t, "@diff (7 lines)", label)
	assert.True(t, strings.HasPrefix(text, "Working tree changes (git diff):\n```diff\ndiff --git a/a.txt b/a.txt\n"), text)
	assert.Contains(t, text, "-one\n+two\n```")

	label, text = gitDiff(context.Background(), dir, true, "a.txt", 0)
	assert.Equal(t, "@staged:a.txt (no changes)", label)
	assert.Equal(t, "The user mentioned @staged:a.txt: Staged changes (git diff --staged -- a.txt) shows no changes.", text)

	label, text = gitDiff(context.Background(), t.TempDir(), false, "", 0)
	assert.Equal(t, "@diff (failed)", label)
	assert.Contains(t, text, "ot a git repository")
	assert.NotContains(t, text, "\n")
}

// A filter planted in the repository's own config (selected by a
// .gitattributes) runs on a plain `git diff` of work-tree files, whatever
// the command line says: @diff refuses the repository, names the key, and
// nothing runs. So does a config the repository reaches (a linked
// worktree's config.worktree).
func TestGitDiffRefusesPlantedFilter(t *testing.T) {
	for _, where := range []string{"config", "worktree"} {
		t.Run(where, func(t *testing.T) {
			dir := diffRepo(t)
			mark := filepath.Join(t.TempDir(), "filter-ran")
			require.NoError(t, os.WriteFile(filepath.Join(dir, ".gitattributes"), []byte("*.txt filter=evil\n"), 0o644))
			if where == "config" {
				gitIn(t, dir, "config", "filter.evil.clean", marker(mark))
			} else {
				wt := filepath.Join(dir, ".git", "worktrees", "x")
				require.NoError(t, os.MkdirAll(wt, 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(wt, "config.worktree"), []byte("[filter \"evil\"]\n\tclean = "+marker(mark)+"\n"), 0o644))
			}
			if where == "config" {
				// The plant works: git diff as a user would type it runs it.
				cmd := exec.Command("git", "diff", "--no-ext-diff", "--no-textconv")
				cmd.Dir = dir
				require.NoError(t, cmd.Run())
				_, err := os.Stat(mark)
				require.NoError(t, err, "the planted filter should run on a plain git diff")
				require.NoError(t, os.Remove(mark))
			}

			for _, staged := range []bool{false, true} {
				label, text := gitDiff(context.Background(), dir, staged, "", 0)
				assert.Contains(t, label, "(refused: ")
				assert.Contains(t, label, "filter.evil.clean")
				assert.Contains(t, text, "but magenta did not run")
				assert.Contains(t, text, "filter.evil.clean")
				noFile(t, mark, "the filter must not run")
			}
		})
	}
}

// What the hardened environment and the command line turn off runs
// nothing even when the user's own global config sets it: a textconv
// driver, an external diff, a pager.
func TestGitDiffIgnoresTextconvAndExternalDiff(t *testing.T) {
	dir := diffRepo(t)
	mark := t.TempDir()
	global := os.Getenv("GIT_CONFIG_GLOBAL")
	cfg := "[diff \"tc\"]\n\ttextconv = " + marker(filepath.Join(mark, "textconv")) + "\n" +
		"[diff]\n\texternal = " + marker(filepath.Join(mark, "external")) + "\n" +
		"[core]\n\tpager = " + marker(filepath.Join(mark, "pager")) + "\n" +
		"\tfsmonitor = " + marker(filepath.Join(mark, "fsmonitor")) + "\n"
	require.NoError(t, os.WriteFile(global, []byte(cfg), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".gitattributes"), []byte("*.txt diff=tc\n"), 0o644))

	label, text := gitDiff(context.Background(), dir, false, "a.txt", 0)
	assert.Equal(t, "@diff:a.txt (7 lines)", label)
	assert.Contains(t, text, "-one\n+two\n")
	entries, err := os.ReadDir(mark)
	require.NoError(t, err)
	assert.Empty(t, entries, "no configured program ran")
}

// A git that does not end in time is stopped, and the mention says so.
func TestGitDiffTimeout(t *testing.T) {
	dir := diffRepo(t)
	bin := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bin, "git"), []byte("#!/bin/sh\nexec sleep 30\n"), 0o755))
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	start := time.Now()
	label, text := gitDiff(context.Background(), dir, false, "", 200*time.Millisecond)
	assert.Less(t, time.Since(start), 5*time.Second)
	assert.Equal(t, "@diff (failed)", label)
	assert.Contains(t, text, "git took longer than 200 ms and was stopped")
}
