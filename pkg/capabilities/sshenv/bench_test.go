package sshenv

import (
	"context"
	"os/exec"
	"testing"

	"github.com/magenta-nvim/magenta/pkg/capabilities/localshell"
	"github.com/magenta-nvim/magenta/pkg/capabilities/remotetest"
	"github.com/magenta-nvim/magenta/pkg/capabilities/sshenv/sshtest"
)

// The benchmarks compare the SSH capabilities with the bare ssh call
// they wrap, in the same run, on the same master connection (report
// medians of -count runs).

// BenchmarkShellEcho: `echo hi` through Shell as the host runs it, on
// the remote agent (package remoteagent).
func BenchmarkShellEcho(b *testing.B) {
	cfg := config(sshtest.Shared(b))
	cfg.AgentDir = sshtest.AgentDir(b)
	benchShellEcho(b, cfg)
}

// BenchmarkShellEchoWrapped: the same without the agent, each command
// on a channel of its own inside the wrapper.
func BenchmarkShellEchoWrapped(b *testing.B) {
	benchShellEcho(b, config(sshtest.Shared(b)))
}

// benchShellEcho runs with the project's small supervisor binary
// (bin/magenta-supervisor, `make build`) when it is there, as the host
// does; otherwise the test binary re-executes itself as the supervisor,
// which costs more than the host pays.
func benchShellEcho(b *testing.B, cfg Config) {
	opts := localshell.Options{LogRoot: b.TempDir(), Supervisor: remotetest.ModuleFile("bin/magenta-supervisor")}
	if opts.Supervisor == "" {
		b.Log("no bin/magenta-supervisor: the test binary supervises")
	}
	env, c, err := NewEnvironment(context.Background(), cfg, opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = c.Close() })
	remotetest.BenchEcho(b, env.Shell, nil)
}

// bare is a bare `ssh host remote` on c's master.
func bare(c *Conn, remote string) func() *exec.Cmd {
	args := append(c.BaseArgs(), "-o", "ControlMaster=no", "-T", sshtest.Alias, remote)
	return func() *exec.Cmd { return exec.Command("ssh", args...) }
}

// BenchmarkBareMasterEcho: `ssh -o ControlPath=… host 'echo hi'` on the
// master the environment opened.
func BenchmarkBareMasterEcho(b *testing.B) {
	_, c, _ := newEnv(b, "")
	remotetest.BenchEcho(b, nil, bare(c, "echo hi"))
}

// BenchmarkWrappedEcho: the remote command Shell sends (the wrapper
// that sweeps after `echo hi`), run by a bare ssh on the same master:
// the remote share of the gap between the two benchmarks above.
func BenchmarkWrappedEcho(b *testing.B) {
	_, c, _ := newEnv(b, "")
	remotetest.BenchEcho(b, nil, bare(c, launchCommand("/home/dev", "echo hi", "bash", "0123456789abcdef", []string{"PAGER=cat"})))
}

// BenchmarkFreshEcho: a new connection per call (no master): the
// handshake each command would cost without multiplexing.
func BenchmarkFreshEcho(b *testing.B) {
	srv := sshtest.Shared(b)
	args := []string{"-F", srv.Config, "-o", "BatchMode=yes", "-o", "ControlPath=none", "-T", sshtest.Alias, "echo hi"}
	remotetest.BenchEcho(b, nil, func() *exec.Cmd { return exec.Command("ssh", args...) })
}

const benchPath = "/tmp/big"

func BenchmarkFileIORead10MB(b *testing.B) {
	env, _, _ := newEnv(b, "")
	remotetest.BenchFile(b, env.Files, benchPath)
	remotetest.BenchRead(b, env.Files, benchPath, nil)
}

// BenchmarkBareCat10MB: `ssh host cat` on the same master.
func BenchmarkBareCat10MB(b *testing.B) {
	env, c, _ := newEnv(b, "")
	remotetest.BenchFile(b, env.Files, benchPath)
	remotetest.BenchRead(b, nil, "", bare(c, "cat "+benchPath))
}
