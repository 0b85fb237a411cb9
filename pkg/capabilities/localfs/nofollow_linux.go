package localfs

import "golang.org/x/sys/unix"

// dirFlags open a directory only to walk through it: O_PATH needs no
// read permission on it (search permission is enough, as for open(2)).
const dirFlags = unix.O_PATH | unix.O_DIRECTORY
