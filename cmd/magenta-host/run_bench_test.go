package main

import (
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/magenta-nvim/magenta/pkg/nvimtest"
)

// BenchmarkRunJSON is `magenta-host run --json` of a one-turn prompt
// against a local fake of the Messages API that answers at once: process
// start to exit (the host, the provider process it starts, one request),
// per iteration. rss-peak-KiB is the largest peak resident set of the
// host or a process it waited for (the provider process), from wait4.
// The version sub-benchmark is the floor on this machine: starting the
// same binary only to print its version.
func BenchmarkRunJSON(b *testing.B) {
	b.Run("version", func(b *testing.B) {
		bin := nvimtest.HostBinary(b)
		var total time.Duration
		for range b.N {
			start := time.Now()
			if out, err := exec.Command(bin, "--version").CombinedOutput(); err != nil {
				b.Fatalf("--version: %v\n%s", err, out)
			}
			total += time.Since(start)
		}
		b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/run")
	})
	b.Run("run", benchmarkRunJSON)
}

func benchmarkRunJSON(b *testing.B) {
	bin := nvimtest.HostBinary(b)
	api := &fakeAnthropic{}
	srv := httptest.NewServer(api)
	defer srv.Close()
	dir := b.TempDir()
	config := filepath.Join(dir, "config.json")
	opts := fmt.Sprintf(`{"profiles": [{"name": "wire", "provider": "anthropic", "model": "claude-test", "baseUrl": %q, "apiKeyEnvVar": "MAGENTA_E2E_KEY"}],
	  "shell": {"logRoot": %q}, "threads": {"persist": false}}`, srv.URL, filepath.Join(dir, "logs"))
	if err := os.WriteFile(config, []byte(opts), 0o600); err != nil {
		b.Fatal(err)
	}
	env := append(xdgEnv(b, dir), "MAGENTA_E2E_KEY=test-key")
	var peak int64
	var total time.Duration
	b.ResetTimer()
	for range b.N {
		api.mu.Lock()
		api.streams = append(api.streams, textStream("Done.", nil))
		api.mu.Unlock()
		cmd := exec.Command(bin, "run", "--config", config, "--json", "say done")
		cmd.Dir, cmd.Env = dir, env
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("run: %v\n%s", err, out)
		}
		total += time.Since(start)
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && ru.Maxrss > peak {
			peak = ru.Maxrss
		}
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/run")
	b.ReportMetric(float64(peak), "rss-peak-KiB")
}
