package localshell

import (
	"context"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/proctest"
	"github.com/magenta-nvim/magenta/pkg/sandbox"
	"github.com/magenta-nvim/magenta/pkg/sandbox/sandboxtest"
	"github.com/magenta-nvim/magenta/pkg/sandbox/zygote"
)

// BenchmarkSeq compares 2 million short lines through Execute (cleaning,
// retention, a full 31 MB log) with bash writing them to /dev/null.
// Each call gets a fresh request id, as in use (truncating the previous
// run's 31 MB log would add ~12 ms); removing the log is not timed.
func BenchmarkSeq(b *testing.B) {
	const n = 2000000
	b.Run("shell", func(b *testing.B) {
		sh := newShell(b)
		for i := 0; i < b.N; i++ {
			opts := capabilities.ExecOptions{ThreadID: "bench", RequestID: "seq" + strconv.Itoa(i), Timeout: time.Minute}
			res, err := sh.Execute(context.Background(), "seq 1 "+strconv.Itoa(n), opts)
			if err != nil || res.TotalLines != n || res.ExitCode != 0 {
				b.Fatalf("err %v, result %+v", err, res)
			}
			b.StopTimer()
			_ = os.Remove(res.LogPath)
			b.StartTimer()
		}
	})
	b.Run("baseline", func(b *testing.B) {
		for b.Loop() {
			if err := exec.Command("bash", "-c", "seq 1 "+strconv.Itoa(n)+" >/dev/null").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkProcessor measures line handling alone (no process, log to
// /dev/null): the output of `seq 1 2000000` fed in pipe-sized chunks.
func BenchmarkProcessor(b *testing.B) {
	out, err := exec.Command("seq", "1", "2000000").Output()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(out)))
	for b.Loop() {
		f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
		if err != nil {
			b.Fatal(err)
		}
		l := newLogFile(f, DefaultLogMaxBytes)
		p := newProcessor(l, nil, nil)
		st := &p.streams[capabilities.Stdout]
		for i := 0; i < len(out); i += 10000 {
			p.feed(st, out[i:min(i+10000, len(out))])
		}
		p.finish(st)
		_ = l.close("end")
	}
}

// BenchmarkLargeOutputRSS runs 200 MB of output through Execute and
// reports how far the process's peak RSS rose above its RSS before.
func BenchmarkLargeOutputRSS(b *testing.B) {
	const cmd = "head -c 200000000 /dev/zero | tr '\\0' 'a' | fold -w 100"
	sh := newShell(b)
	opts := capabilities.ExecOptions{ThreadID: "bench", RequestID: "rss", Timeout: 5 * time.Minute}
	var growth float64
	for b.Loop() {
		runtime.GC()
		before := procStatusKB(b, "VmRSS")
		// Reset the peak (VmHWM) to the current RSS.
		if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
			b.Skipf("cannot reset peak RSS: %v", err)
		}
		res, err := sh.Execute(context.Background(), cmd, opts)
		if err != nil || res.TotalLines != 2000000 {
			b.Fatalf("err %v, result %+v", err, res)
		}
		growth = max(growth, float64(procStatusKB(b, "VmHWM")-before)/1024)
	}
	b.ReportMetric(growth, "rss-growth-MB")
}

func procStatusKB(b *testing.B, field string) int {
	kib, err := proctest.StatusKiB(0, field)
	if err != nil {
		b.Skipf("no /proc status: %v", err)
	}
	return int(kib)
}

// BenchmarkTrue measures the per-call cost of the process supervisor:
// `true` through Execute with and without it (the test binary is its own
// supervisor, see TestMain), and with the host binary as supervisor when
// MAGENTA_HOST_BIN names one.
func BenchmarkTrue(b *testing.B) {
	shells := []struct {
		name string
		opts Options
	}{{"direct", Options{Unsupervised: true}}, {"supervised", Options{}}}
	if host := os.Getenv("MAGENTA_HOST_BIN"); host != "" {
		shells = append(shells, struct {
			name string
			opts Options
		}{"supervised-by-host-binary", Options{Supervisor: host}})
	}
	// MAGENTA_SUPERVISOR_BIN: the small supervisor binary make builds
	// beside the host (what the host uses).
	if sup := os.Getenv("MAGENTA_SUPERVISOR_BIN"); sup != "" {
		shells = append(shells, struct {
			name string
			opts Options
		}{"supervised-by-supervisor-binary", Options{Supervisor: sup}})
	}
	// Spaced, a supervised command is handed to an idle spare supervisor
	// (procsup's spares); back to back, it waits for the spare still
	// starting.
	for _, pace := range benchPaces {
		for _, s := range shells {
			b.Run(pace.name+"/"+s.name, func(b *testing.B) {
				s.opts.LogRoot = b.TempDir()
				sh := New(s.opts)
				opts := capabilities.ExecOptions{ThreadID: "bench", RequestID: "true"}
				for b.Loop() {
					if res, err := sh.Execute(context.Background(), "true", opts); err != nil || res.ExitCode != 0 {
						b.Fatalf("err %v, result %+v", err, res)
					}
					pace.pause(b)
				}
			})
		}
	}
}

// BenchmarkSeqInteractive compares `seq 1 1000000` (6.9 MB, a million
// lines) through the PTY path (terminal emulator, scrollback taken line
// by line) with the pipe path, both with the log and retention.
func BenchmarkSeqInteractive(b *testing.B) {
	const n = 1000000
	for _, mode := range []struct {
		name        string
		interactive bool
	}{{"pty", true}, {"pipe", false}} {
		b.Run(mode.name, func(b *testing.B) {
			sh := newShell(b)
			b.SetBytes(6888897) // len(seq 1 1000000)
			for i := 0; i < b.N; i++ {
				opts := capabilities.ExecOptions{ThreadID: "bench", RequestID: mode.name + strconv.Itoa(i),
					Timeout: 5 * time.Minute, Interactive: mode.interactive}
				res, err := sh.Execute(context.Background(), "seq 1 "+strconv.Itoa(n), opts)
				if err != nil || res.TotalLines != n || res.ExitCode != 0 || res.Interactive != mode.interactive {
					b.Fatalf("err %v, result %+v", err, res)
				}
				b.StopTimer()
				_ = os.Remove(res.LogPath)
				b.StartTimer()
			}
		})
	}
	// What the PTY alone costs: seq on a PTY whose master is read and
	// discarded, no emulator, no supervisor, no log.
	b.Run("pty-relay", func(b *testing.B) {
		b.SetBytes(6888897)
		for b.Loop() {
			master, slave, err := openPTY()
			if err != nil {
				b.Fatal(err)
			}
			cmd := exec.Command("seq", "1", strconv.Itoa(n))
			cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
			if err := cmd.Start(); err != nil {
				b.Fatal(err)
			}
			slave.Close()
			_, _ = io.Copy(io.Discard, master) // ends with EIO
			_ = cmd.Wait()
			master.Close()
		}
	})
}

// BenchmarkTrueConfined is `true` through the whole local shell (with
// its supervisor, as the host runs commands) unconfined, confined by
// bubblewrap started for the command, and confined through the
// session's confinement parent (package zygote), with the default
// policy (network denied): what every small command the checker allows
// costs once the sandbox confines it. Each runs back to back and spaced
// (benchPaces).
func BenchmarkTrueConfined(b *testing.B) {
	st := sandboxtest.Require(b)
	ws, home := b.TempDir(), b.TempDir()
	status := func() (sandbox.Status, error) { return st, nil }
	policy := sandbox.Policy{Workspace: ws, Home: home}
	exe := os.Getenv("MAGENTA_SUPERVISOR_BIN")
	if exe == "" {
		exe, _ = os.Executable()
	}
	parent := ParentFor(status, policy, exe, func(msg string) { b.Log(msg) })
	defer parent.Close()
	for _, pace := range benchPaces {
		for _, mode := range []struct {
			name    string
			sandbox bool
			parent  *zygote.Parent
		}{{"unconfined", false, nil}, {"confined-bwrap", true, nil}, {"confined-parent", true, parent}} {
			b.Run(pace.name+"/"+mode.name, func(b *testing.B) {
				if mode.parent != nil {
					waitReady(b, mode.parent)
				}
				sh := New(Options{LogRoot: b.TempDir(), Cwd: ws, Supervisor: os.Getenv("MAGENTA_SUPERVISOR_BIN"),
					Confiner: BwrapConfiner{Status: status, Policy: policy, Parent: mode.parent}})
				opts := capabilities.ExecOptions{ThreadID: "bench", RequestID: "true", Sandbox: mode.sandbox}
				for b.Loop() {
					if res, err := sh.Execute(context.Background(), "true", opts); err != nil || res.ExitCode != 0 {
						b.Fatalf("err %v, result %+v", err, res)
					}
					pace.pause(b)
				}
			})
		}
	}
}

// benchPaces are how commands follow each other in the confined
// benchmarks: back to back (the worst case: the confinement parent's
// next init starts while the next command waits), and spaced as a
// model's commands are, by a model's answer at least (the pause is not
// timed).
var benchPaces = []struct {
	name  string
	pause func(b *testing.B)
}{
	{"back-to-back", func(*testing.B) {}},
	{"spaced", func(b *testing.B) {
		b.StopTimer()
		time.Sleep(modelTurn) // a model's answer between two commands
		b.StartTimer()
	}},
}

// modelTurn is the pause between spaced commands: less than any model
// takes to answer.
const modelTurn = 50 * time.Millisecond
