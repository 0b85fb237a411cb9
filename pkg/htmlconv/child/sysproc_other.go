//go:build !linux

package child

import "syscall"

// sysProcAttr: without a parent-death signal a converter whose host died
// ends when its conversion does (its stdin was already read; its stdout
// is closed).
func sysProcAttr() *syscall.SysProcAttr { return nil }
