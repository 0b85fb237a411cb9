package tools

import (
	"context"
	"encoding/json"
	"io"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/localshell"
)

// BenchmarkSeqLive: `seq 1 3000000` through bash_command's real output
// path (the local shell, with the live view the chat polls) against Go
// reading the same pipe and discarding it, and against the per-line
// callback bash_command used before (a call, a string and a mutex per
// line). The supervisor is off in all three: its start-up cost is
// BenchmarkTrue's (localshell), not the output path's.
func BenchmarkSeqLive(b *testing.B) {
	const n = 3000000
	cmd := "seq 1 " + strconv.Itoa(n)
	b.Run("go-reads-pipe", func(b *testing.B) {
		for b.Loop() {
			c := exec.Command("bash", "-c", cmd)
			out, err := c.StdoutPipe()
			if err != nil {
				b.Fatal(err)
			}
			if err := c.Start(); err != nil {
				b.Fatal(err)
			}
			if _, err := io.Copy(io.Discard, out); err != nil {
				b.Fatal(err)
			}
			if err := c.Wait(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("bash_command", func(b *testing.B) {
		sh := localshell.New(localshell.Options{LogRoot: b.TempDir(), Unsupervised: true})
		env := &capabilities.Environment{Cwd: b.TempDir(), Shell: sh}
		input, _ := json.Marshal(map[string]string{"command": cmd})
		tool := BashCommand(time.Minute)
		for i := 0; b.Loop(); i++ {
			live := &Live{}
			res := tool.Run(context.Background(), Call{ID: "seq" + strconv.Itoa(i), ThreadID: "bench", Input: input, Env: env, Live: live})
			if res.IsError || live.Snapshot().Total != n {
				b.Fatalf("result %+v, live %+v", res, live.Snapshot())
			}
		}
	})
	b.Run("per-line-callback", func(b *testing.B) {
		sh := localshell.New(localshell.Options{LogRoot: b.TempDir(), Unsupervised: true})
		for i := 0; b.Loop(); i++ {
			var mu sync.Mutex
			var lines []string
			total := 0
			opts := capabilities.ExecOptions{ThreadID: "bench", RequestID: "line" + strconv.Itoa(i), Timeout: time.Minute,
				OnOutput: func(l capabilities.OutputLine) {
					mu.Lock()
					if len(lines) == LiveLines {
						copy(lines, lines[1:])
						lines[LiveLines-1] = l.Text
					} else {
						lines = append(lines, l.Text)
					}
					total++
					mu.Unlock()
				}}
			res, err := sh.Execute(context.Background(), cmd, opts)
			if err != nil || res.TotalLines != n || total != n {
				b.Fatalf("err %v, lines %d/%d", err, total, n)
			}
		}
	})
}
