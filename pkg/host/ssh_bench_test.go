package host

import (
	"context"
	"testing"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/sshenv/sshtest"
	"github.com/magenta-nvim/magenta/pkg/config"
)

// BenchmarkSSHThreadEcho is `echo hi` as an ssh thread's bash_command
// runs it: the permission checker, the remote checks (a listing of the
// remote workspace) and the command, both through the remote agent —
// what the model waits for, where sshenv's BenchmarkShellEcho is the
// environment's Shell alone.
func BenchmarkSSHThreadEcho(b *testing.B) {
	srv := sshtest.Start(b)
	sshtest.Docker(b, "exec", "-u", "dev", srv.Container, "mkdir", "-p", "/home/dev/bench")
	h := New(nil, Options{Editor: &recordingEditor{got: make(chan struct{}, 8)}, SSHConfig: srv.Config, SSHAgentDir: sshtest.AgentDir(b)})
	b.Cleanup(h.Close)
	opts := config.Options{Shell: config.Shell{LogRoot: b.TempDir()}}
	checker, err := bashChecker(opts)
	if err != nil {
		b.Fatal(err)
	}
	h.checker.Store(checker)
	env, err := h.sshEnvironment(context.Background(), opts, sshtest.Alias, "/home/dev/bench")
	if err != nil {
		b.Fatal(err)
	}
	ctx := capabilities.WithCall(context.Background(), capabilities.CallInfo{ThreadID: "t", RequestID: "bench"})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := env.Shell.Execute(ctx, "echo hi", capabilities.ExecOptions{ThreadID: "t", RequestID: "bench"})
		if err != nil || res.ExitCode != 0 {
			b.Fatalf("echo hi: %v %+v", err, res)
		}
	}
}
