package localshell

import (
	"os"
	"syscall"
)

// fSetPipeSz is F_SETPIPE_SZ from <fcntl.h>.
const fSetPipeSz = 1031

// growPipe asks for a 1 MB pipe buffer so a fast writer rarely blocks
// waiting for the reader (the default 64 KB makes `seq 1 2000000` ~40 %
// slower). Failure (the per-user pipe quota) keeps the default.
func growPipe(f *os.File) {
	if sc, err := f.SyscallConn(); err == nil {
		_ = sc.Control(func(fd uintptr) {
			_, _, _ = syscall.Syscall(syscall.SYS_FCNTL, fd, fSetPipeSz, 1<<20)
		})
	}
}
