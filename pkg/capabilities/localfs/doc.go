// Package localfs implements capabilities.FileIO on the local disk.
//
// Errors name the operation and the path ("read /x/y: does not exist")
// and match the contract's sentinels: a missing path, or one under a
// missing directory or under a regular file, is capabilities.ErrNotExist;
// a directory met by a file operation is capabilities.ErrIsDirectory.
// Other OS errors (permissions, I/O) keep their own cause, so errors.Is
// with fs.ErrPermission still works; capabilities.ErrPermissionDenied is
// reserved for decorators that refuse a request.
//
// WriteFile is atomic: the content goes to a temporary file in the target's
// directory, is synced, and is renamed over the target, so a reader sees
// the old content or the new, never a mix, and a failed write leaves the
// old file intact. An existing file keeps its permission bits (owner and
// hard links are not kept: the file is a new inode); a new file gets 0644
// regardless of the umask. A file the process may not write (0444, say)
// stays an error, although the rename alone would get around it. A
// non-regular target (a FIFO, a device) is written in place.
//
// Symlinks are followed as the OS does, the final component included:
// writing through a link replaces the file it points to (creating it when
// the link dangles) and leaves the link in place. Judging which paths may
// be touched is the permission decorator's job, not this layer's.
//
// Every method checks its context before doing anything, and readers from
// Open and ReadFile check it again between reads.
package localfs
