package procsup

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
)

// A record is a file <dir>/<host pid>-<supervisor pid> holding
// "<host start time> <supervisor start time>" (clock ticks since boot,
// /proc/<pid>/stat field 22): a pid with another start time is another
// process.

var hostStart = sync.OnceValues(func() (uint64, bool) {
	st, ok := readStat(os.Getpid())
	return st.startTime, ok
})

// Track records p under dir (created 0700) and returns the function that
// removes the record once p has been waited for. A record that cannot be
// written costs only the sweep of this one supervisor.
func Track(dir string, p *Process) (untrack func()) {
	hs, ok1 := hostStart()
	st, ok2 := readStat(p.Pid)
	if !ok1 || !ok2 || os.MkdirAll(dir, 0o700) != nil {
		return func() {}
	}
	name := filepath.Join(dir, strconv.Itoa(os.Getpid())+"-"+strconv.Itoa(p.Pid))
	if os.WriteFile(name, fmt.Appendf(nil, "%d %d\n", hs, st.startTime), 0o600) != nil {
		return func() {}
	}
	return func() { _ = os.Remove(name) }
}

// Sweep kills what the records under dir say a dead host left running:
// a supervisor still alive with its recorded start time, its descendants
// and its process group, all with SIGKILL. Records of a host that is
// still running (another Neovim) are left alone; the others are removed.
// It returns how many supervisors it killed.
func Sweep(dir string) int {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	killed := 0
	for _, e := range ents {
		var hostPid, supPid int
		var hs, ss uint64
		name := filepath.Join(dir, e.Name())
		if _, err := fmt.Sscanf(e.Name(), "%d-%d", &hostPid, &supPid); err != nil {
			continue
		}
		b, err := os.ReadFile(name)
		if err != nil {
			continue
		}
		if _, err := fmt.Sscanf(string(b), "%d %d", &hs, &ss); err != nil {
			_ = os.Remove(name)
			continue
		}
		if alive(hostPid, hs) {
			continue
		}
		if alive(supPid, ss) {
			// Stop it first so it cannot start anything new, then take
			// the tree from the leaves' side all at once.
			_ = syscall.Kill(supPid, syscall.SIGSTOP)
			signalAll(Descendants(supPid), syscall.SIGKILL)
			_ = syscall.Kill(-supPid, syscall.SIGKILL)
			_ = syscall.Kill(supPid, syscall.SIGKILL)
			killed++
		}
		_ = os.Remove(name)
	}
	return killed
}

// alive reports whether pid runs and started at start.
func alive(pid int, start uint64) bool {
	st, ok := readStat(pid)
	return ok && st.startTime == start && st.state != 'Z' && st.state != 'X'
}
