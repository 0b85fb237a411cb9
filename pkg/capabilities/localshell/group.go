package localshell

import (
	"errors"
	"strconv"
	"syscall"
	"time"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/procsup"
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
	ok = procsup.EachProc(func(p procsup.Proc) bool {
		live = p.Pgrp == pgid && p.State != 'Z' && p.State != 'X' && p.State != 'x'
		return !live
	})
	return live, ok
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

// SignalName names a signal the Linux way ("SIGKILL"), or "SIG<n>".
func SignalName(s syscall.Signal) string {
	if n := int(s); n > 0 && n < len(signalNames) && signalNames[n] != "" {
		return signalNames[n]
	}
	return "SIG" + strconv.Itoa(int(s))
}
