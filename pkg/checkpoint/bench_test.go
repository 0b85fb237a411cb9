package checkpoint

import (
	"encoding/binary"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
)

var (
	largeOnce  sync.Once
	largeDir   string
	largeFiles []string
	largeErr   error
)

// TestMain removes the workspace the benchmarks share.
func TestMain(m *testing.M) {
	code := m.Run()
	if largeDir != "" {
		os.RemoveAll(largeDir)
	}
	os.Exit(code)
}

// largeWorkspace writes, once for all benchmarks, 10 000 files of about
// 200 MB: text files of 4–28 KB over 50×10 nested directories, and five
// 8 MiB binary files. Benchmarks edit it, each with its own store.
func largeWorkspace(b *testing.B) (string, []string) {
	b.Helper()
	largeOnce.Do(func() { largeDir, largeFiles, largeErr = makeLarge() })
	if largeErr != nil {
		b.Fatal(largeErr)
	}
	return largeDir, largeFiles
}

func makeLarge() (string, []string, error) {
	ws, err := os.MkdirTemp("", "checkpoint-bench-")
	if err != nil {
		return "", nil, err
	}
	rng := rand.New(rand.NewPCG(1, 2))
	line := []byte("func example(x int) int { return x * 42 } // some typical source text\n")
	var text []string
	for i := range 9995 {
		rel := fmt.Sprintf("pkg%02d/sub%d/file%05d.go", i%50, (i/50)%10, i)
		n := 4<<10 + rng.IntN(24<<10)
		buf := make([]byte, 0, n+len(line))
		for len(buf) < n {
			buf = append(buf, line...)
		}
		buf = append(buf, fmt.Sprintf("// %d\n", i)...)
		if err := writeBench(ws, rel, buf); err != nil {
			return ws, nil, err
		}
		text = append(text, rel)
	}
	buf := make([]byte, 8<<20)
	for i := range 5 {
		for j := 0; j < len(buf); j += 8 {
			binary.LittleEndian.PutUint64(buf[j:], rng.Uint64())
		}
		if err := writeBench(ws, fmt.Sprintf("assets/blob%d.bin", i), buf); err != nil {
			return ws, nil, err
		}
	}
	return ws, text, nil
}

func writeBench(ws, rel string, data []byte) error {
	name := filepath.Join(ws, rel)
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	return os.WriteFile(name, data, 0o644)
}

// diskUsage is the space the files under dir take (allocated blocks).
func diskUsage(b *testing.B, dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil {
			if fi, err := d.Info(); err == nil {
				n += fi.Sys().(*syscall.Stat_t).Blocks * 512
			}
		}
		return nil
	})
	return n
}

// touchFive appends a line to five text files.
func touchFive(b *testing.B, ws string, files []string, round int) {
	for k := range 5 {
		rel := files[(round*5+k)*37%len(files)]
		f, err := os.OpenFile(filepath.Join(ws, rel), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			b.Fatal(err)
		}
		fmt.Fprintf(f, "// edit %d\n", round)
		f.Close()
	}
}

func BenchmarkFirstSnapshot(b *testing.B) {
	ws, _ := largeWorkspace(b)
	b.ResetTimer()
	for i := range b.N {
		s, err := Open(Options{Dir: filepath.Join(b.TempDir(), fmt.Sprint("store", i)), Workspace: ws})
		if err != nil {
			b.Fatal(err)
		}
		snap(b, s, "g", "first", nil)
		b.StopTimer()
		b.ReportMetric(float64(diskUsage(b, s.dir)), "disk-B/store")
		s.Close()
		b.StartTimer()
	}
}

func BenchmarkSnapshotLargeWorkspace(b *testing.B) {
	ws, files := largeWorkspace(b)
	s := openStore(b, ws, nil)
	snap(b, s, "g", "first", nil)
	before := diskUsage(b, s.dir)
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		touchFive(b, ws, files, i)
		b.StartTimer()
		snap(b, s, "g", "after five edits", nil)
	}
	b.StopTimer()
	b.ReportMetric(float64(diskUsage(b, s.dir)-before)/float64(b.N), "disk-B/checkpoint")
}

func BenchmarkSnapshotUnchanged(b *testing.B) {
	ws, _ := largeWorkspace(b)
	s := openStore(b, ws, nil)
	snap(b, s, "g", "first", nil)
	b.ResetTimer()
	for range b.N {
		snap(b, s, "g", "unchanged", nil)
	}
}

func BenchmarkRestoreFiveFiles(b *testing.B) {
	ws, files := largeWorkspace(b)
	s := openStore(b, ws, nil)
	cp := snap(b, s, "g", "before", nil)
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		touchFive(b, ws, files, i)
		b.StartTimer()
		p, err := s.Plan(testCtx(b), cp.ID, nil)
		if err != nil {
			b.Fatal(err)
		}
		if len(p.Files) != 5 {
			b.Fatalf("plan has %d files", len(p.Files))
		}
		if err := ApplyToDisk(ws, p); err != nil {
			b.Fatal(err)
		}
	}
}
