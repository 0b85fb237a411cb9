package sandbox_test

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/sandbox"
	"github.com/magenta-nvim/magenta/pkg/sandbox/sandboxtest"
	"github.com/magenta-nvim/magenta/pkg/sandbox/zygote"
)

// gitBenchFiles is the size of BenchmarkGitStatus's repository.
const gitBenchFiles = 10000

// BenchmarkGitStatus measures `git status` in a repository of 10 000
// committed files, unconfined and confined by Args (network denied).
// Issue 23's target: confined ≤ unconfined + 10 ms. "confined" pays what
// every confined command pays (Args, with its workspace scan, then
// bwrap); "confined-argv-reused" runs one argv built once, to separate
// the scan from the sandbox's start; "confined-parent" runs it through
// the session's confinement parent (package zygote), with the mounts
// computed for each command, back to back and "-spaced" by a model's
// answer (untimed; the parent starts its next init meanwhile). Each reports its median as
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
	for _, spaced := range []bool{false, true} {
		name := "confined-parent"
		if spaced {
			name += "-spaced"
		}
		b.Run(name, func(b *testing.B) {
			parent := startParent(b, st, policy)
			var times []time.Duration
			for b.Loop() {
				start := time.Now()
				l, err := policy.CommandOps(st, ws)
				require.NoError(b, err)
				r, w, err := os.Pipe()
				require.NoError(b, err)
				cmd, err := parent.Run(status, append(policy.Environ(env), l.Env...), ws, l.Ops, nil, w, w)
				w.Close()
				require.NoError(b, err)
				out, _ := io.ReadAll(r)
				r.Close()
				ws, err := cmd.Wait()
				require.NoError(b, err)
				require.Equal(b, 0, ws.ExitStatus(), "%s", out)
				require.Contains(b, string(out), "nothing to commit", "the repository should be clean")
				times = append(times, time.Since(start))
				if spaced {
					b.StopTimer()
					time.Sleep(modelTurn) // a model's answer between two commands
					b.StartTimer()
				}
			}
			reportMedian(b, times)
		})
	}
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

// startParent starts a confinement parent (this test binary, see
// TestMain) for policy and waits until it is ready.
func startParent(b *testing.B, st sandbox.Status, policy sandbox.Policy) *zygote.Parent {
	self, err := os.Executable()
	require.NoError(b, err)
	parent := zygote.New(zygote.Options{
		Executable: self,
		Args:       func(exe string, args ...string) ([]string, error) { return policy.ParentArgs(st, exe, args...) },
		CheckOps: func() ([]string, error) {
			l, err := policy.CommandOps(st, policy.Workspace)
			return l.Ops, err
		},
		Log: func(msg string) { b.Log(msg) },
	})
	b.Cleanup(parent.Close)
	deadline := time.Now().Add(zygote.CheckTimeout + 5*time.Second)
	for !parent.Ready() {
		ready, why := parent.Status()
		require.True(b, ready || why == "starting" || time.Now().Before(deadline), "the confinement parent is not used: %s", why)
		time.Sleep(5 * time.Millisecond) // polling a state, with a deadline
	}
	return parent
}

// modelTurn is the pause between spaced commands: less than any model
// takes to answer.
const modelTurn = 50 * time.Millisecond
