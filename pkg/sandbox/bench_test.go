package sandbox_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/magenta-nvim/magenta/pkg/sandbox"
	"github.com/magenta-nvim/magenta/pkg/sandbox/sandboxtest"
)

// BenchmarkBashTrue measures `bash -c true` unconfined, confined by Args
// (network denied and allowed), and under bwrap with one option group
// added at a time, to show what each costs. Each sub-benchmark reports
// its median as median-ms.
func BenchmarkBashTrue(b *testing.B) {
	st := sandboxtest.Require(b)
	w := benchWorld(b, st)
	bash := []string{"bash", "--noprofile", "--norc", "-c", "true"}
	confined := func(p sandbox.Policy) []string {
		launch, err := p.Args(st, w.ws)
		if err != nil {
			b.Fatal(err)
		}
		return append(launch.Prefix, bash...)
	}
	allow := w.policy
	allow.Network = sandbox.NetworkAllow
	bw := st.Path
	for _, tc := range []struct {
		name string
		argv []string
	}{
		{"unconfined", bash},
		{"confined-deny", confined(w.policy)},
		{"confined-allow", confined(allow)},
		{"bwrap-ro-root", append([]string{bw, "--ro-bind", "/", "/", "--"}, bash...)},
		{"+dev", append([]string{bw, "--ro-bind", "/", "/", "--dev", "/dev", "--"}, bash...)},
		{"+tmpfs-tmp", append([]string{bw, "--ro-bind", "/", "/", "--tmpfs", "/tmp", "--"}, bash...)},
		{"+unshare-pid+proc", append([]string{bw, "--ro-bind", "/", "/", "--proc", "/proc", "--unshare-pid", "--"}, bash...)},
		{"+unshare-net", append([]string{bw, "--ro-bind", "/", "/", "--unshare-net", "--"}, bash...)},
		{"+die-with-parent+new-session", append([]string{bw, "--ro-bind", "/", "/", "--die-with-parent", "--new-session", "--"}, bash...)},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var times []time.Duration
			for b.Loop() {
				start := time.Now()
				if out, err := exec.Command(tc.argv[0], tc.argv[1:]...).CombinedOutput(); err != nil {
					b.Fatalf("%v: %s", err, out)
				}
				times = append(times, time.Since(start))
			}
			reportMedian(b, times)
		})
	}
}

// BenchmarkDetect is what host start pays, once, in the background.
func BenchmarkDetect(b *testing.B) {
	sandboxtest.Require(b)
	var times []time.Duration
	for b.Loop() {
		start := time.Now()
		if st := sandbox.Detect(context.Background(), ""); !st.Available {
			b.Fatal(st.Reason)
		}
		times = append(times, time.Since(start))
	}
	reportMedian(b, times)
}

// BenchmarkArgs is what every confined command pays before it starts:
// mostly the workspace scan (here over the planted world).
func BenchmarkArgs(b *testing.B) {
	st := sandboxtest.Require(b)
	w := benchWorld(b, st)
	for b.Loop() {
		if _, err := w.policy.Args(st, w.ws); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkArgsLargeWorkspace is Args on a workspace at the scan bound
// (200 directories of 99 files).
func BenchmarkArgsLargeWorkspace(b *testing.B) {
	st := sandboxtest.Require(b)
	w := benchWorld(b, st)
	for d := range 200 {
		dir := filepath.Join(w.ws, "pkg", strconv.Itoa(d))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := range 99 {
			if err := os.WriteFile(filepath.Join(dir, strconv.Itoa(f)+".go"), nil, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	for b.Loop() {
		if _, err := w.policy.Args(st, w.ws); err != nil {
			b.Fatal(err)
		}
	}
}

func reportMedian(b *testing.B, times []time.Duration) {
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2])/float64(time.Millisecond), "median-ms")
}

func benchWorld(b *testing.B, st sandbox.Status) *world {
	root := b.TempDir()
	w := &world{home: root + "/home", ws: root + "/home/proj", st: st}
	plant(b, w.home, map[string]string{".ssh/id_rsa": sshSecret, ".aws/credentials": awsSecret})
	plant(b, w.ws, map[string]string{".env": envSecret, "server.key": keySecret, "src/app.go": "package app\n", ".git/hooks/pre-commit": hookText, ".git/config": gitConfig})
	w.policy = sandbox.Policy{Workspace: w.ws, Home: w.home}
	return w
}
