package procsup

import (
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
)

// envVar switches a process into supervisor mode; its value is
// "<host pid>,<grace in ms>", followed by ",tty" for a command run
// under a pseudo-terminal (StartTerminal). The supervisor removes it from the
// command's environment.
const envVar = "MAGENTA_SUPERVISE"

// available is set by MainIfSupervisor in a process that is not a
// supervisor: re-executing this executable then gives one.
var available atomic.Bool

// MainIfSupervisor must be the first statement of main (and of TestMain
// in test binaries that run supervised commands). In a process started
// as a supervisor it supervises the command in os.Args[1:] and exits
// with its status; otherwise it returns at once, having marked this
// executable as able to supervise (see Available).
func MainIfSupervisor() {
	if spec, ok := os.LookupEnv(envVar); ok {
		// syscall.Exit, not os.Exit: nothing is buffered, and os.Exit
		// would run exit hooks, such as the race detector's one-second
		// sleep in a test binary built with -race.
		syscall.Exit(supervise(spec, os.Args[1:]))
	}
	available.Store(supported)
}

// Available reports whether this executable can be re-executed as a
// supervisor: MainIfSupervisor ran and the platform supports it. A
// binary whose main does not call MainIfSupervisor (a test binary
// without the TestMain hook) must never be re-executed as one: it would
// run its own main instead.
func Available() bool { return available.Load() }

// BinaryName is the small supervisor program built beside the host
// (cmd/magenta-supervisor).
const BinaryName = "magenta-supervisor"

// Beside returns the path of the supervisor program next to the running
// executable, or "" when there is no executable file there (a test
// binary, a host copied without it): callers then re-execute Self.
func Beside() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	path := filepath.Join(filepath.Dir(exe), BinaryName)
	info, err := os.Stat(path)
	if err != nil || !info.Mode().IsRegular() || info.Mode().Perm()&0o111 == 0 {
		return ""
	}
	return path
}
