package tools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/localfs"
)

// peakRSSKB reads VmHWM (peak resident set) of this process.
func peakRSSKB() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return n
		}
	}
	return 0
}

// BenchmarkGetFile10MB reads a 10 MB file with get_file on the local
// disk: it must answer within its cap (the first GetFileMaxLines lines)
// without reading the rest. Reported: time, bytes allocated per call, and
// the growth of the process's peak RSS over the run.
func BenchmarkGetFile10MB(b *testing.B) {
	dir := b.TempDir()
	path := filepath.Join(dir, "big.txt")
	var buf bytes.Buffer
	for i := 0; buf.Len() < 10<<20; i++ {
		fmt.Fprintf(&buf, "line %d: the quick brown fox jumps over the lazy dog\n", i)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	env := &capabilities.Environment{Cwd: dir, Files: localfs.New()}
	reg := Builtin(Config{})
	input := json.RawMessage(`{"path":"big.txt"}`)
	before := peakRSSKB()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res := reg.Run(context.Background(), "get_file", Call{Input: input, Env: env})
		if res.IsError || !strings.Contains(res.Text, "continues") {
			b.Fatalf("unexpected result: %.200s", res.Text)
		}
	}
	b.ReportMetric(float64(peakRSSKB()-before)/1024, "peak-rss-growth-MB")
}
