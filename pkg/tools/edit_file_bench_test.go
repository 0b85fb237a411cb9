package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/localfs"
)

// writeBigFile writes size bytes of numbered text lines to path in chunks,
// so the benchmark's own setup does not raise the heap it measures.
func writeBigFile(b *testing.B, path string, size int) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	line := []byte("the quick brown fox jumps over the lazy dog, again and again\n")
	chunk := []byte(strings.Repeat(string(line), 1<<14))
	for written := 0; written < size; written += len(chunk) {
		if _, err := f.Write(chunk[:min(len(chunk), size-written)]); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := f.WriteString("alpha\n"); err != nil {
		b.Fatal(err)
	}
}

// heapPeak samples the live heap until stop is called and returns the
// highest value seen. Sampling can miss a short spike, so the figure is
// a lower bound; it is reported, never asserted.
func heapPeak() (stop func() uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() uint64 { close(done); wg.Wait(); return peak }
}

// benchmarkEditFile runs edit_file on a file of size bytes on the local
// disk and reports the peak live heap and the growth of peak RSS.
func benchmarkEditFile(b *testing.B, size int) {
	dir := b.TempDir()
	path := filepath.Join(dir, "big.txt")
	writeBigFile(b, path, size)
	env := &capabilities.Environment{Cwd: dir, Files: localfs.New()}
	reg := Builtin(Config{})
	input := json.RawMessage(`{"path":"big.txt","old_string":"alpha","new_string":"ALPHA"}`)
	rssBefore := peakRSSKB()
	var peak uint64
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		stop := heapPeak()
		res := reg.Run(context.Background(), "edit_file", Call{Input: input, Env: env})
		peak = max(peak, stop())
		if i == 0 {
			b.Logf("result: %.200s", res.Text)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
	b.ReportMetric(float64(peakRSSKB()-rssBefore)/1024, "peak-RSS-growth-MB")
}

// BenchmarkEditFile100MB: edit_file on a 100 MB file must not hold
// several copies of it (it is refused above the cap, after a stat).
func BenchmarkEditFile100MB(b *testing.B) { benchmarkEditFile(b, 100<<20) }

// BenchmarkEditFileAtCap: the largest file edit_file takes; its peak
// heap is the price of holding old, new and the diff.
func BenchmarkEditFileAtCap(b *testing.B) { benchmarkEditFile(b, FileChangeMaxBytes-len("alpha\n")) }
