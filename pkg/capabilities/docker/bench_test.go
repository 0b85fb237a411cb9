package docker

import (
	"os/exec"
	"testing"

	"github.com/magenta-nvim/magenta/pkg/capabilities/docker/dockertest"
	"github.com/magenta-nvim/magenta/pkg/capabilities/remotetest"
)

// The pairs below compare the Docker capabilities with the bare CLI
// call they wrap, in the same run (report medians of -count runs).

func BenchmarkShellEcho(b *testing.B) {
	env, _ := newEnv(b, "")
	remotetest.BenchEcho(b, env.Shell, nil)
}

func BenchmarkBareExecEcho(b *testing.B) {
	name := dockertest.Start(b)
	remotetest.BenchEcho(b, nil, func() *exec.Cmd { return exec.Command("docker", "exec", name, "bash", "-c", "echo hi") })
}

const benchPath = "/tmp/big"

func BenchmarkFileIORead10MB(b *testing.B) {
	env, _ := newEnv(b, "")
	remotetest.BenchFile(b, env.Files, benchPath)
	remotetest.BenchRead(b, env.Files, benchPath, nil)
}

func BenchmarkBareExecCat10MB(b *testing.B) {
	env, name := newEnv(b, "")
	remotetest.BenchFile(b, env.Files, benchPath)
	remotetest.BenchRead(b, nil, "", func() *exec.Cmd { return exec.Command("docker", "exec", name, "cat", benchPath) })
}
