package zygote

import (
	"errors"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// dropCapabilities leaves this thread, and so the command started from
// it, with no capability: its bounding set emptied (the command gains
// none at exec even as root), its ambient, inheritable, permitted and
// effective sets cleared, and no_new_privs set. The init's other
// threads keep theirs until it exits; nothing reaches them: the init is
// not dumpable (no ptrace, no /proc/1/mem), and a PID namespace's init
// gets from inside it only the signals it handles.
func dropCapabilities() error {
	// Read once: in the loop's condition it was read again for every
	// capability, ~250 system calls on each command's path.
	last := lastCap()
	for c := 0; c <= last; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
			return err
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return err
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return err
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	return unix.Capset(&hdr, &data[0])
}

// lastCap is the highest capability this kernel knows.
func lastCap() int {
	data, err := os.ReadFile("/proc/sys/kernel/cap_last_cap")
	if err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil && n > 0 && n < 128 {
			return n
		}
	}
	return 63
}
