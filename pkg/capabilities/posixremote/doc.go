// Package posixremote is what the environments that act on another
// machine through a command-line client share — package docker
// (`docker exec` into a container) and package sshenv (a channel of an
// ssh master): files read and written by small POSIX sh scripts, commands
// run inside a wrapper that ends their whole process tree there, and the
// probe an environment starts with.
//
// # The transport
//
// A Runner is the one thing each environment provides: Command turns
// (script, args) into a local process that runs `sh -c script sh args…`
// on the machine (paths and commands travel as arguments, never inside
// script text), and Failure says whether a non-zero exit is the
// transport's (a paused or removed container, a lost ssh connection)
// rather than the script's. A Remote is a Runner with the words its
// errors use ("docker container web", "in container web"); Remote.Run
// runs a script and collects stdout, status and stderr.
//
// # Files
//
// FileIO (capabilities.FileIO) runs the scripts of scripts.go: reads
// stream `cat` after a header line that says whether the path is a
// regular file (a FIFO or device is refused before it is opened: nothing
// blocks) and, for Update, whether it is under the cap (CodeTooLarge and
// the size otherwise); writes send the bytes on stdin to a temporary file
// beside the target (beside a symlink's target), check its length (a
// cancelled write is cut short and must not land), give it the old
// file's mode and owner, and rename it over the target; Update holds a
// per-path lock (package pathlock) in this process around read, change
// and write. The machine needs sh, cat, stat -c (GNU or busybox), mkdir,
// chmod, chown, mv, rm, readlink — busybox has them. Scripts report
// CodeNotExist, CodeIsDir, CodeNotRegular, which become the capabilities
// sentinels. Remote.RealPath resolves a path there (`readlink -f`, a
// missing tail appended to its deepest existing ancestor).
//
// # Commands
//
// Shell is localshell (output pipeline, logs on the host, timeout,
// abort, the supervisor of the local client) with launchers the
// environment makes (ShellHooks) that run the command inside WrapScript
// (POSIX sh) or WrapScriptBash (bash builtins, for a machine with bash).
// The wrapper runs the command with MAGENTA_CALL=<random id> (CallMarker,
// NewMarker), which every process it starts inherits; ending it — on
// timeout or cancel, from a second call of EndScript, and by the wrapper
// itself once the command exits — sends SIGTERM, then SIGKILL after
// ShellTerminateGrace, to each process whose /proc/<pid>/environ carries
// the id. That reaches processes that left the group with setsid, which
// a process-group kill misses; a process that clears its environment
// (env -i) escapes, and a machine without /proc gets no sweep. A process
// caught in the middle of an exec reads an empty environment, so a
// listing counts only when no new process read empty around it (else it
// is taken again a tick later, for at most 5 s). Why a sweep and not a
// supervisor shipped to the machine: the machine may be any Linux of any
// architecture, and the sweep needs only sh, grep and /proc.
package posixremote
