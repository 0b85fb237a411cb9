//go:build !linux

package remote

import "syscall"

// sysProcAttr: without a parent-death signal the process ends at EOF on
// its stdin.
func sysProcAttr() *syscall.SysProcAttr { return nil }
