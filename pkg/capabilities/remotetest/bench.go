package remotetest

import (
	"bytes"
	"context"
	"os/exec"
	"testing"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// The benchmarks of package docker and sshenv compare a capability with
// the bare CLI call it wraps, in the same run (report medians of -count
// runs); these are their loops.

// BenchFileSize is the size of the file the read benchmarks read.
const BenchFileSize = 10 << 20

// BenchFile writes BenchFileSize bytes at path through files, and sets
// b to count them per round.
func BenchFile(b *testing.B, files capabilities.FileIO, path string) {
	data := bytes.Repeat([]byte("0123456789abcdef"), BenchFileSize/16)
	if err := files.WriteFile(context.Background(), path, data); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(BenchFileSize)
}

// BenchRead reads the file BenchFile wrote each round: through files
// when cmd is nil, else with the bare command cmd makes (its stdout is
// the content).
func BenchRead(b *testing.B, files capabilities.FileIO, path string, cmd func() *exec.Cmd) {
	for b.Loop() {
		var data []byte
		var err error
		if cmd == nil {
			data, err = files.ReadFile(context.Background(), path)
		} else {
			data, err = cmd().Output()
		}
		if err != nil || len(data) != BenchFileSize {
			b.Fatal(err, len(data))
		}
	}
}

// BenchEcho runs `echo hi` each round: through sh when cmd is nil, else
// the bare command cmd makes, which must print "hi".
func BenchEcho(b *testing.B, sh capabilities.Shell, cmd func() *exec.Cmd) {
	ctx := context.Background()
	for b.Loop() {
		if cmd != nil {
			if out, err := cmd().Output(); err != nil || string(out) != "hi\n" {
				b.Fatal(err, string(out))
			}
			continue
		}
		res, err := sh.Execute(ctx, "echo hi", capabilities.ExecOptions{ThreadID: "bench", RequestID: "echo"})
		if err != nil || res.ExitCode != 0 {
			b.Fatal(err, res)
		}
	}
}
