package sshenv

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// processAlive reports whether pid is a live process of this machine:
// signal 0 reaches it and, where /proc says so, it is not a zombie (the
// master runs in the background, reaped by whoever adopted it, maybe
// not at once).
func processAlive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true // no /proc (macOS): signal 0 is all we know
	}
	// "pid (comm) S …": the state follows the last ')'.
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) {
		return stat[i+2] != 'Z'
	}
	return true
}
