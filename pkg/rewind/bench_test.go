package rewind

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// benchWorkspace is a workspace of n small files in nested directories.
func benchWorkspace(b *testing.B, n int) string {
	ws := b.TempDir()
	for i := range n {
		dir := filepath.Join(ws, fmt.Sprintf("d%02d", i%50))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%04d.go", i)), []byte(fmt.Sprintf("package d\n\n// file %d\nfunc F%d() {}\n", i, i)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return ws
}

// The cost checkpoints add to one tool call that changes a file: the
// same write with and without the interceptor's two snapshots, in a
// workspace of 2 000 files whose first checkpoint was taken (as Warm
// takes it when the sidebar opens).
func BenchmarkCheckpointedWrite(b *testing.B) {
	ws := benchWorkspace(b, 2000)
	target := filepath.Join(ws, "d00", "f0000.go")
	write := func(i int) tools.Next {
		return func(context.Context) tools.Result {
			if err := os.WriteFile(target, []byte(fmt.Sprintf("package d\n// %d\n", i)), 0o644); err != nil {
				b.Fatal(err)
			}
			return tools.Result{Text: "ok"}
		}
	}
	env := &capabilities.Environment{Name: "local", Cwd: ws}
	b.Run("without", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			write(i)(context.Background())
		}
	})
	b.Run("checkpointed", func(b *testing.B) {
		c := New(Options{Dir: filepath.Join(b.TempDir(), "store"), Workspace: ws})
		defer c.Close()
		if _, err := c.snapshot(context.Background(), "t", "first"); err != nil {
			b.Fatal(err)
		}
		ic := c.Interceptor()
		call := tools.Call{ID: "c", ThreadID: "t", Env: env}
		for i := 0; b.Loop(); i++ {
			if res := ic.Intercept(context.Background(), "write_file", call, write(i)); len(res.Notes) > 0 {
				b.Fatal(res.Notes)
			}
		}
	})
}
