package nvimbuf_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/localfs"
	"github.com/magenta-nvim/magenta/pkg/capabilities/nvimbuf"
	"github.com/magenta-nvim/magenta/pkg/nvimtest"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// BenchmarkEdit applies edit_file to a 2 000-line file through the
// buffer-aware FileIO: "loaded-buffer" with the file open in Neovim (read
// from the buffer, written through it and saved), "disk" with it not
// loaded (read and written on disk). Each iteration flips one line.
func BenchmarkEdit(b *testing.B) {
	bins := nvimtest.Binaries()
	if len(bins) == 0 {
		b.Skip("no Neovim")
	}
	for _, loaded := range []bool{true, false} {
		name := "disk"
		if loaded {
			name = "loaded-buffer"
		}
		b.Run(name, func(b *testing.B) {
			n := nvimtest.Start(b, bins[0])
			n.Serve()
			path := filepath.Join(n.Dir, "code.go")
			var sb strings.Builder
			for i := 0; i < 2000; i++ {
				fmt.Fprintf(&sb, "func f%d() int { return %d }\n", i, i)
			}
			if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
				b.Fatal(err)
			}
			if loaded {
				n.Command("edit " + path)
			}
			env := &capabilities.Environment{Cwd: n.Dir, Files: nvimbuf.New(n.V, localfs.New())}
			reg := tools.Builtin(tools.Config{})
			edits := []json.RawMessage{
				json.RawMessage(`{"path":"code.go","old_string":"func f1000() int { return 1000 }","new_string":"func f1000() int { return -1 }"}`),
				json.RawMessage(`{"path":"code.go","old_string":"func f1000() int { return -1 }","new_string":"func f1000() int { return 1000 }"}`),
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				res := reg.Run(context.Background(), "edit_file", tools.Call{Input: edits[i%2], Env: env})
				if res.IsError {
					b.Fatal(res.Text)
				}
			}
		})
	}
}
