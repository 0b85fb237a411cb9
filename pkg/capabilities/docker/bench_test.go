package docker

import (
	"bytes"
	"context"
	"os/exec"
	"testing"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/docker/dockertest"
)

// The pairs below compare the Docker capabilities with the bare CLI
// call they wrap, in the same run (report medians of -count runs).

func BenchmarkShellEcho(b *testing.B) {
	env, _ := newEnv(b, "")
	ctx := context.Background()
	for b.Loop() {
		res, err := env.Shell.Execute(ctx, "echo hi", capabilities.ExecOptions{ThreadID: "bench", RequestID: "echo"})
		if err != nil || res.ExitCode != 0 {
			b.Fatal(err, res)
		}
	}
}

func BenchmarkBareExecEcho(b *testing.B) {
	name := dockertest.Start(b)
	for b.Loop() {
		if out, err := exec.Command("docker", "exec", name, "bash", "-c", "echo hi").Output(); err != nil || string(out) != "hi\n" {
			b.Fatal(err, string(out))
		}
	}
}

const benchFileSize = 10 << 20

// benchFile writes a 10 MB file into the environment's container.
func benchFile(b *testing.B) (*capabilities.Environment, string, string) {
	env, name := newEnv(b, "")
	data := bytes.Repeat([]byte("0123456789abcdef"), benchFileSize/16)
	if err := env.Files.WriteFile(context.Background(), "/tmp/big", data); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(benchFileSize)
	return env, name, "/tmp/big"
}

func BenchmarkFileIORead10MB(b *testing.B) {
	env, _, path := benchFile(b)
	for b.Loop() {
		data, err := env.Files.ReadFile(context.Background(), path)
		if err != nil || len(data) != benchFileSize {
			b.Fatal(err, len(data))
		}
	}
}

func BenchmarkBareExecCat10MB(b *testing.B) {
	_, name, path := benchFile(b)
	for b.Loop() {
		out, err := exec.Command("docker", "exec", name, "cat", path).Output()
		if err != nil || len(out) != benchFileSize {
			b.Fatal(err, len(out))
		}
	}
}
