package threadstore

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// lock takes the writer lock of a log without waiting. flock locks
// belong to the open file description, so a second descriptor in the
// same process is refused too, and the kernel drops the lock when the
// process dies (kill -9 included).
func lock(f *os.File) error {
	err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return ErrLocked
	}
	if err != nil {
		return fmt.Errorf("lock %s: %w", f.Name(), err)
	}
	return nil
}

// unlockClose releases the lock, then closes f. Closing alone releases
// it only when no other descriptor refers to the open file description,
// and a process being started holds a copy of every descriptor from its
// fork until its exec closes them: a Delete or OpenWriter right then
// (another thread running a command) found the thread still locked.
func unlockClose(f *os.File) error {
	_ = unix.Flock(int(f.Fd()), unix.LOCK_UN)
	return f.Close()
}
