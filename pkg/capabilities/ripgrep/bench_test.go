package ripgrep

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// goroot is $(go env GOROOT); the benchmark is skipped without a go.
func goroot(b *testing.B) string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil || strings.TrimSpace(string(out)) == "" {
		b.Skipf("go env GOROOT: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// BenchmarkSearchGoroot compares the grep tool's search (MaxMatches 100,
// as pkg/tools uses it; "tool") with `rg --json` run directly over the
// whole of $GOROOT/src, its output read and discarded ("direct").
// "tool-uncapped" decodes every match, to show the decoding cost.
func BenchmarkSearchGoroot(b *testing.B) {
	rg := needRG(b)
	src := filepath.Join(goroot(b), "src")
	if _, err := os.Stat(src); err != nil {
		b.Skipf("no GOROOT sources: %v", err)
	}
	const pattern = "func main"

	b.Run("tool", func(b *testing.B) {
		s := New(Options{})
		r := capabilities.SearchRequest{Pattern: pattern, Path: src, MaxMatches: 100}
		if _, err := s.Search(context.Background(), r); err != nil { // find rg once
			b.Fatal(err)
		}
		b.ResetTimer()
		for b.Loop() {
			res, err := s.Search(context.Background(), r)
			if err != nil {
				b.Fatal(err)
			}
			if res.Matches != 100 || !res.Truncated || len(res.Errors) > 0 {
				b.Fatalf("unexpected result: %d matches, truncated %v, errors %v", res.Matches, res.Truncated, res.Errors)
			}
		}
	})

	// Every match decoded: the cost of decoding next to "direct".
	b.Run("tool-uncapped", func(b *testing.B) {
		s := New(Options{})
		r := capabilities.SearchRequest{Pattern: pattern, Path: src}
		for b.Loop() {
			res, err := s.Search(context.Background(), r)
			if err != nil {
				b.Fatal(err)
			}
			if res.Matches < 100 || res.Truncated || len(res.Errors) > 0 {
				b.Fatalf("unexpected result: %d matches, truncated %v, errors %v", res.Matches, res.Truncated, res.Errors)
			}
		}
	})

	b.Run("direct", func(b *testing.B) {
		for b.Loop() {
			cmd := exec.Command(rg, "--json", "-e", pattern, src)
			out, err := cmd.StdoutPipe()
			if err != nil {
				b.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				b.Fatal(err)
			}
			if _, err := io.Copy(io.Discard, out); err != nil {
				b.Fatal(err)
			}
			if err := cmd.Wait(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
