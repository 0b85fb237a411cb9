package sandbox_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/sandbox"
	"github.com/magenta-nvim/magenta/pkg/sandbox/sandboxtest"
)

// gitBenchFiles is the size of BenchmarkGitStatus's repository.
const gitBenchFiles = 10000

// BenchmarkGitStatus measures `git status` in a repository of 10 000
// committed files, unconfined and confined by Args (network denied).
// Issue 23's target: confined ≤ unconfined + 10 ms. "confined" pays what
// every confined command pays (Args, with its workspace scan, then
// bwrap); "confined-argv-reused" runs one argv built once, to separate
// the scan from the sandbox's start. Each reports its median as
// median-ms. The repository is made once per run, in the parent's
// b.TempDir().
func BenchmarkGitStatus(b *testing.B) {
	st := sandboxtest.Require(b)
	home, ws := gitBenchRepo(b)
	policy := sandbox.Policy{Workspace: ws, Home: home, Network: sandbox.NetworkDeny}
	status := []string{"git", "status"}
	env := os.Environ()
	confined := func() ([]string, []string) {
		l, err := policy.Args(st, ws)
		require.NoError(b, err)
		require.True(b, l.Complete, "the workspace scan stopped early")
		return append(append([]string(nil), l.Prefix...), status...), append(policy.Environ(env), l.Env...)
	}
	run := func(argv, env []string) {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir, cmd.Env = ws, env
		out, err := cmd.CombinedOutput()
		require.NoError(b, err, "%s", out)
		require.Contains(b, string(out), "nothing to commit", "the repository should be clean")
	}
	b.Run("unconfined", func(b *testing.B) {
		var times []time.Duration
		for b.Loop() {
			start := time.Now()
			run(status, env)
			times = append(times, time.Since(start))
		}
		reportMedian(b, times)
	})
	b.Run("confined", func(b *testing.B) {
		var times []time.Duration
		for b.Loop() {
			start := time.Now()
			run(confined())
			times = append(times, time.Since(start))
		}
		reportMedian(b, times)
	})
	b.Run("confined-argv-reused", func(b *testing.B) {
		argv, cenv := confined()
		var times []time.Duration
		for b.Loop() {
			start := time.Now()
			run(argv, cenv)
			times = append(times, time.Since(start))
		}
		reportMedian(b, times)
	})
}

// gitBenchRepo makes home/ws under b.TempDir(), ws a git repository of
// gitBenchFiles files in 100 directories, committed once, with a fresh
// index (one status run settles its stat data).
func gitBenchRepo(b *testing.B) (home, ws string) {
	b.Helper()
	root, err := filepath.EvalSymlinks(b.TempDir())
	require.NoError(b, err)
	home = filepath.Join(root, "home")
	ws = filepath.Join(home, "repo")
	for i := range gitBenchFiles {
		dir := filepath.Join(ws, fmt.Sprintf("pkg%02d", i/100))
		if i%100 == 0 {
			require.NoError(b, os.MkdirAll(dir, 0o755))
		}
		require.NoError(b, os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.go", i%100)), fmt.Appendf(nil, "package p\n\nconst C%d = %d\n", i, i), 0o644))
	}
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-c", "user.name=bench", "-c", "user.email=bench@example.com"}, args...)...)
		cmd.Dir = ws
		out, err := cmd.CombinedOutput()
		require.NoError(b, err, "git %v: %s", args, out)
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-q", "-m", "bench")
	git("status", "--porcelain")
	// A real workspace was not created a moment ago: the workspace scan
	// reads again every directory changed within the last 2 s (it could
	// still change within the same timestamp), so let them age past it.
	time.Sleep(2100 * time.Millisecond)
	return home, ws
}
