package remoteagent

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/magenta-nvim/magenta/pkg/capabilities/procsup"
)

const (
	// sweepTick is how often a sweep lists the processes again.
	sweepTick = 20 * time.Millisecond
	// unsettledBound is how long a sweep keeps listing while it finds
	// no marked process but some that read empty (see listing).
	unsettledBound = time.Second
	// stuckBound is how long after SIGKILL a sweep gives up on a process
	// that does not go (stuck in the kernel).
	stuckBound = 5 * time.Second
)

// listing is one pass over /proc: the processes carrying a marker, and
// whether some process read an empty environment. A process between the
// two halves of an exec reads empty (the kernel sets the new image's
// environment last), so a pass that saw one may have missed a marked
// process: the sweep lists again.
type listing struct {
	pids      []int
	unsettled bool
}

// marked lists the processes whose environment holds entry (a whole
// NAME=value), except self. Other users' processes (unreadable),
// zombies and kernel threads (empty environments that never fill) are
// skipped.
func marked(entry string, self int) listing {
	var l listing
	d, err := os.Open("/proc")
	if err != nil {
		return l
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	want := []byte(entry)
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil || pid == self {
			continue
		}
		env, err := os.ReadFile("/proc/" + name + "/environ")
		if err != nil {
			continue
		}
		if len(env) == 0 {
			if settling(pid) {
				l.unsettled = true
			}
			continue
		}
		for _, kv := range bytes.Split(env, []byte{0}) {
			if bytes.Equal(kv, want) {
				l.pids = append(l.pids, pid)
				break
			}
		}
	}
	return l
}

// settling: a process that read an empty environment is neither a
// zombie nor a kernel thread (whose parent is kthreadd, pid 2).
func settling(pid int) bool {
	p, ok := procsup.ReadProc(pid)
	return ok && p.State != 'Z' && p.State != 'X' && pid != 2 && p.PPid != 2
}

// sweep ends every process carrying marker: SIGTERM on each pass, SIGKILL
// once the grace period is over, until none is left.
func sweep(marker string, self int, grace time.Duration) {
	entry := markerEntry(marker)
	start := time.Now()
	for {
		l := marked(entry, self)
		elapsed := time.Since(start)
		switch {
		case len(l.pids) == 0 && (!l.unsettled || elapsed > unsettledBound):
			return
		case elapsed > grace+stuckBound:
			return
		}
		sig := syscall.SIGTERM
		if elapsed >= grace {
			sig = syscall.SIGKILL
		}
		for _, p := range l.pids {
			_ = syscall.Kill(p, sig)
		}
		time.Sleep(sweepTick)
	}
}
