package child

import "syscall"

// sysProcAttr asks the kernel to kill the converter when the host dies,
// even by SIGKILL.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
