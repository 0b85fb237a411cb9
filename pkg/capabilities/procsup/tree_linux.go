package procsup

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"time"
)

const (
	// scanInterval is how often a terminated tree is rescanned.
	scanInterval = 5 * time.Millisecond
	// killRoundsFor bounds the SIGKILL rounds against a tree that keeps
	// forking; the supervisor then gives up and exits.
	killRoundsFor = 10 * time.Second
)

// reaper reaps the supervisor's children, keeping the status of the
// command (its direct child) when it is among them.
type reaper struct {
	child  int
	status syscall.WaitStatus
	done   bool
}

// reap reaps every child that has ended and reports whether any child,
// live or zombie, is left. With the subreaper bit, none left means no
// descendant at all.
func (r *reaper) reap() (childrenLeft bool) {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG|wAll, nil)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return err != syscall.ECHILD
		case pid == 0:
			return true
		case pid == r.child:
			r.status, r.done = ws, true
		}
	}
}

// killTree ends every descendant of this process: SIGTERM (with SIGCONT,
// so a stopped process sees it) first, SIGKILL once grace has passed,
// reaping as it goes. It returns when no child is left, or after
// killRoundsFor of SIGKILL rounds.
func (r *reaper) killTree(grace time.Duration) {
	if !r.reap() {
		return
	}
	self := os.Getpid()
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		// Rescanned each round: children of a process that just died
		// came to us and have not seen the SIGTERM yet.
		signalAll(Descendants(self), syscall.SIGTERM, syscall.SIGCONT)
		time.Sleep(scanInterval)
		if !r.reap() {
			return
		}
	}
	giveUp := time.Now().Add(killRoundsFor)
	for time.Now().Before(giveUp) {
		signalAll(Descendants(self), syscall.SIGKILL)
		time.Sleep(scanInterval)
		if !r.reap() {
			return
		}
	}
}

func signalAll(pids []int, sigs ...syscall.Signal) {
	for _, pid := range pids {
		for _, s := range sigs {
			_ = syscall.Kill(pid, s)
		}
	}
}

// Descendants lists the live descendants of pid, read from /proc parent
// links (zombies are left out: they cannot be signalled and their parent
// reaps them). Order is parents before children.
func Descendants(pid int) []int {
	children := map[int][]int{}
	forEachProc(func(p, ppid int, state byte) {
		if state != 'Z' && state != 'X' && state != 'x' {
			children[ppid] = append(children[ppid], p)
		}
	})
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// forEachProc calls f with the pid, parent pid and state of every
// process in /proc.
func forEachProc(f func(pid, ppid int, state byte)) {
	EachProc(func(p Proc) bool {
		f(p.Pid, p.PPid, p.State)
		return true
	})
}

// Proc is one process as /proc/<pid>/stat describes it.
type Proc struct {
	Pid, PPid, Pgrp int
	State           byte // 'R', 'S', 'Z' (zombie), …
}

// EachProc calls f for every process in /proc until f returns false. It
// reports false when /proc cannot be read (the caller must not conclude
// that no process exists).
func EachProc(f func(Proc) bool) bool {
	d, err := os.Open("/proc")
	if err != nil {
		return false
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return false
	}
	var buf [1024]byte
	for _, name := range names {
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		fh, err := os.Open("/proc/" + name + "/stat")
		if err != nil {
			continue
		}
		n, _ := fh.Read(buf[:])
		fh.Close()
		if st, ok := parseStat(buf[:n]); ok && !f(Proc{Pid: pid, PPid: st.ppid, Pgrp: st.pgrp, State: st.state}) {
			return true
		}
	}
	return true
}

// stat is what this package reads from /proc/<pid>/stat.
type stat struct {
	state     byte
	ppid      int
	pgrp      int
	startTime uint64 // clock ticks after boot (field 22)
}

// parseStat parses "pid (comm) state ppid pgrp session tty tpgid flags
// minflt cminflt majflt cmajflt utime stime cutime cstime priority nice
// threads itrealvalue starttime ..."; comm may hold spaces and ')'.
func parseStat(b []byte) (stat, bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return stat{}, false
	}
	f := bytes.Fields(b[i+1:])
	// f[0] is field 3 (state); starttime, field 22, is f[19].
	if len(f) < 20 || len(f[0]) == 0 {
		return stat{}, false
	}
	ppid, err := strconv.Atoi(string(f[1]))
	if err != nil {
		return stat{}, false
	}
	pgrp, err := strconv.Atoi(string(f[2]))
	if err != nil {
		return stat{}, false
	}
	start, err := strconv.ParseUint(string(f[19]), 10, 64)
	if err != nil {
		return stat{}, false
	}
	return stat{state: f[0][0], ppid: ppid, pgrp: pgrp, startTime: start}, true
}

// ReadProc reads one process's /proc/<pid>/stat; false when it is gone
// (or unreadable).
func ReadProc(pid int) (Proc, bool) {
	st, ok := readStat(pid)
	return Proc{Pid: pid, PPid: st.ppid, Pgrp: st.pgrp, State: st.state}, ok
}

// readStat reads /proc/<pid>/stat.
func readStat(pid int) (stat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return stat{}, false
	}
	return parseStat(b)
}
