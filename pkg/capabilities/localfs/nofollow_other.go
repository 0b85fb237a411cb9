//go:build unix && !linux

package localfs

import "golang.org/x/sys/unix"

// dirFlags open a directory to walk through it (no O_PATH here).
const dirFlags = unix.O_RDONLY | unix.O_DIRECTORY
