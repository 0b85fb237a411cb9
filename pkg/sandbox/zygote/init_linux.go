package zygote

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// runInit is pid 1 of one command's PID namespace. Started ahead of
// its command, it makes the mounts every command gets (mountFresh),
// then waits on its socket for the command, its streams and its mounts;
// it makes them, drops every capability, runs the command and says so.
// When the command ends it kills whatever it left and exits with the
// command's status.
func runInit() int {
	// The command is started from this thread, whose credentials it
	// inherits; the capabilities are dropped here (and, where the
	// runtime allows, in every thread).
	runtime.LockOSThread()
	// A command shares this PID namespace: while the init holds
	// capabilities it must not be traceable.
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	f := os.NewFile(initFD, "parent")
	fc, err := net.FileConn(f)
	f.Close()
	if err != nil {
		return 125
	}
	c := fc.(*net.UnixConn)
	freshErr := mountFresh()
	var req request
	files, err := receive(c, &req)
	if err != nil {
		return 125
	}
	fail := func(err error) int {
		_ = send(c, reply{Error: err.Error()})
		return 125
	}
	if freshErr != nil {
		return fail(freshErr)
	}
	if len(files) != streams || len(req.Argv) == 0 {
		return fail(errors.New("a request without its command or streams"))
	}
	pid, err := startCommand(req, files)
	closeAll(files)
	if err != nil {
		return fail(err)
	}
	if err := send(c, reply{Started: true}); err != nil {
		_ = syscall.Kill(-1, syscall.SIGKILL)
	}
	c.Close()
	return reap(pid)
}

// startCommand makes the command's mounts, drops every capability and
// starts the command with its streams.
func startCommand(req request, streams []*os.File) (int, error) {
	ops, err := parseOps(req.Ops)
	if err != nil {
		return 0, err
	}
	if err := mountAll(ops); err != nil {
		return 0, err
	}
	if err := os.Chdir(req.Cwd); err != nil {
		return 0, fmt.Errorf("working directory: %w", err)
	}
	if err := dropCapabilities(); err != nil {
		return 0, fmt.Errorf("dropping capabilities: %w", err)
	}
	path, err := lookPath(req.Argv[0], req.Env)
	if err != nil {
		return 0, err
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT)
	pid, err := syscall.ForkExec(path, req.Argv, &syscall.ProcAttr{
		Dir: req.Cwd, Env: req.Env, Files: []uintptr{streams[0].Fd(), streams[1].Fd(), streams[2].Fd()},
	})
	if err != nil {
		return 0, fmt.Errorf("%s: %w", req.Argv[0], err)
	}
	// A signal for the command goes to every process in its namespace
	// (kill(-1) from pid 1 spares only the init itself).
	go func() {
		for s := range sigs {
			_ = syscall.Kill(-1, s.(syscall.Signal))
		}
	}()
	return pid, nil
}

// reap waits for the command, then kills and reaps everything else in
// the namespace, and returns the command's status.
func reap(pid int) int {
	code := -1
	for {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil { // ECHILD: nothing is left
			if code < 0 {
				code = 1
			}
			return code
		}
		if got == pid {
			if ws.Signaled() {
				code = 128 + int(ws.Signal())
			} else {
				code = ws.ExitStatus()
			}
			_ = syscall.Kill(-1, syscall.SIGKILL)
		}
	}
}

// lookPath finds argv0 on the command's PATH, as execvp would.
func lookPath(argv0 string, env []string) (string, error) {
	if strings.Contains(argv0, "/") {
		return argv0, nil
	}
	path := "/usr/local/bin:/usr/bin:/bin"
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, argv0)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: command not found", argv0)
}
