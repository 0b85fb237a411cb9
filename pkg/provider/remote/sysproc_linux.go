package remote

import "syscall"

// sysProcAttr asks the kernel to kill the provider process when the host
// dies, even by SIGKILL (it would also end at EOF on its stdin).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
