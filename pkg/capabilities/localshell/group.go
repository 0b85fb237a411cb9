package localshell

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// pollInterval is how often a terminated group is checked for survivors.
const pollInterval = 5 * time.Millisecond

// terminateGroup sends SIGTERM to the process group pgid and SIGKILL
// ShellTerminateGrace later if a live member remains. It returns as soon
// as no live member is left, or after the SIGKILL.
func terminateGroup(pgid int) {
	if err := syscall.Kill(-pgid, syscall.SIGTERM); errors.Is(err, syscall.ESRCH) {
		return
	}
	deadline := time.Now().Add(capabilities.ShellTerminateGrace)
	for time.Now().Before(deadline) {
		if !groupAlive(pgid) {
			return
		}
		time.Sleep(pollInterval)
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
}

// groupAlive reports whether the group has a member that is not a zombie.
// kill(-pgid, 0) alone is not enough: an orphan re-parented to an init
// that does not reap stays a zombie member of the group forever.
func groupAlive(pgid int) bool {
	if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	live, ok := liveMembers(pgid)
	return !ok || live
}

// liveMembers scans /proc for a non-zombie process of group pgid; ok is
// false when /proc cannot be read (then the caller trusts kill).
func liveMembers(pgid int) (live, ok bool) {
	d, err := os.Open("/proc")
	if err != nil {
		return false, false
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return false, false
	}
	want := []byte(strconv.Itoa(pgid))
	var buf [512]byte
	for _, name := range names {
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		f, err := os.Open("/proc/" + name + "/stat")
		if err != nil {
			continue
		}
		n, _ := f.Read(buf[:])
		f.Close()
		state, pg := statFields(buf[:n])
		if bytes.Equal(pg, want) && state != 'Z' && state != 'X' && state != 'x' {
			return true, true
		}
	}
	return false, true
}

// statFields picks the state and the process group out of a
// /proc/<pid>/stat line: "pid (comm) state ppid pgrp ...".
func statFields(b []byte) (state byte, pgrp []byte) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return 0, nil
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 3 || len(f[0]) == 0 {
		return 0, nil
	}
	return f[0][0], f[2]
}

var signalNames = [...]string{
	1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 4: "SIGILL", 5: "SIGTRAP",
	6: "SIGABRT", 7: "SIGBUS", 8: "SIGFPE", 9: "SIGKILL", 10: "SIGUSR1",
	11: "SIGSEGV", 12: "SIGUSR2", 13: "SIGPIPE", 14: "SIGALRM", 15: "SIGTERM",
	16: "SIGSTKFLT", 17: "SIGCHLD", 18: "SIGCONT", 19: "SIGSTOP", 20: "SIGTSTP",
	21: "SIGTTIN", 22: "SIGTTOU", 23: "SIGURG", 24: "SIGXCPU", 25: "SIGXFSZ",
	26: "SIGVTALRM", 27: "SIGPROF", 28: "SIGWINCH", 29: "SIGIO", 30: "SIGPWR",
	31: "SIGSYS",
}

// signalName names a signal the Linux way ("SIGKILL"), or "SIG<n>".
func signalName(s syscall.Signal) string {
	if n := int(s); n > 0 && n < len(signalNames) && signalNames[n] != "" {
		return signalNames[n]
	}
	return "SIG" + strconv.Itoa(int(s))
}
