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
// WriteFile and Update are atomic: the content goes to a temporary file in
// the target's directory, is synced, and is renamed over the target, so a
// reader sees the old content or the new, never a mix, and a failed write
// leaves the old file intact. An existing file keeps its permission bits
// (owner and hard links are not kept: the file is a new inode); a new file
// gets 0644 regardless of the umask. A file the process may not write
// (0444, say) stays an error, although the rename alone would get around
// it. Both hold a per-path lock (package pathlock) shared by every FS in
// the process, so an Update's read and write are one step for that path.
//
// Every step after the target's directory is opened goes through an
// os.Root handle on it (openat, fstatat, renameat): nothing resolves the
// path again. With a confinement in the context (capabilities.WithBeneath,
// set by the permission decorator), the directory itself is reached from
// the confining root one component at a time, never through a symlink
// leading out, and the file must not be a symlink: a directory swapped for
// a symlink after the permission check makes the write fail. os.Root
// uses only openat with O_NOFOLLOW and friends, no openat2, so it works on
// kernels and sandboxes that reject newer syscalls.
//
// FIFOs, devices and sockets are refused (capabilities.ErrNotRegular) for
// reading and writing: files are opened with O_NONBLOCK and checked with
// fstat, so opening a FIFO cannot block and a file swapped for one between
// a stat and the open is still caught. ReadFile and Update read no more
// than their cap plus one byte.
//
// A read carrying the path a permission decorator judged
// (capabilities.WithChecked) opens that path and no other: from "/", one
// component at a time, each with O_NOFOLLOW (O_PATH for directories on
// Linux); a symlink met on the way, which the judged path (every link
// resolved) did not have, fails with capabilities.ErrChangedWhileChecked.
// So a file or directory swapped for a link to a secret between the
// check and the read cannot be read in its place.
//
// Without a confinement, symlinks are followed as the OS does, the final
// component included:
// writing through a link replaces the file it points to (creating it when
// the link dangles) and leaves the link in place. Judging which paths may
// be touched is the permission decorator's job, not this layer's.
//
// Every method checks its context before doing anything, and readers from
// Open and ReadFile check it again between reads.
package localfs
