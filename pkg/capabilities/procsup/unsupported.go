//go:build !linux

package procsup

import (
	"errors"
	"os/exec"
	"syscall"
	"time"
)

const supported = false

// Self is empty: there is no supervisor on this platform.
const Self = ""

func supervise(string, []string) int { return 2 }

// Process is a supervised command; on this platform none can be started.
type Process struct{ Pid int }

// Start is not supported on this platform.
func Start(string, *exec.Cmd, time.Duration) (*Process, error) { return nil, errors.ErrUnsupported }

// StartTerminal is not supported on this platform.
func StartTerminal(string, *exec.Cmd, time.Duration) (*Process, error) {
	return nil, errors.ErrUnsupported
}

// Terminate does nothing on this platform.
func (*Process) Terminate() {}

// Kill does nothing on this platform.
func (*Process) Kill() {}

// Wait is not supported on this platform.
func (*Process) Wait() (syscall.WaitStatus, error) { return 0, errors.ErrUnsupported }

// Track records nothing on this platform.
func Track(string, *Process) func() { return func() {} }

// Sweep does nothing on this platform.
func Sweep(string) int { return 0 }

// Proc is one process; on this platform there is no /proc to read.
type Proc struct {
	Pid, PPid, Pgrp int
	State           byte
}

// EachProc reports false: there is no /proc to read on this platform.
func EachProc(func(Proc) bool) bool { return false }

// Settle has nothing to wait for on this platform.
func Settle() {}
