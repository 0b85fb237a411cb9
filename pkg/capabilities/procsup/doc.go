// Package procsup supervises the process tree of one shell command so
// that nothing it starts outlives the call, whatever the command does to
// escape (setsid, double forks, ignoring SIGTERM) and even when the host
// itself is killed with SIGKILL.
//
// # Mechanism
//
// The host starts a small supervisor between itself and bash: the
// magenta-supervisor binary built beside the host (Beside), a program
// that links only this package, with the MAGENTA_SUPERVISE environment
// variable set. It starts in about a millisecond; re-executing the host
// itself, which works too (Self) and is the fallback when the small
// binary is missing, costs several more per command, every `ls` the
// model runs. Either program's main calls MainIfSupervisor first thing;
// in supervisor mode it never returns. The supervisor:
//
//   - makes itself a child subreaper (prctl PR_SET_CHILD_SUBREAPER), so
//     every orphan of the tree — a `setsid cmd &`, the grandchild of a
//     double fork — is re-parented to it rather than to init, and stays
//     findable as a descendant;
//   - is started with a parent-death signal (SIGHUP, set by the host at
//     fork), so it learns when the host dies, even by SIGKILL; a SIGHUP
//     while its parent is still the host (the forking thread of the host
//     ended, which also fires it) is not obeyed, and from then on the
//     supervisor checks its parent once a second instead;
//   - runs the command in its own process group, with the supervisor's
//     stdin, stdout and stderr (StartTerminal: as session leader with
//     the terminal on its stdin as controlling terminal), and the
//     environment minus MAGENTA_SUPERVISE;
//   - when the command ends, when the host asks (SIGTERM, SIGINT) or when
//     the host dies: sends SIGTERM (and SIGCONT, so stopped processes see
//     it) to every descendant, found by walking /proc parent links from
//     itself, reaps, rescans, and after the grace period sends SIGKILL to
//     whatever is left, until it has no child at all;
//   - reports the command's wait status (or why it could not start) on
//     file descriptor 3, then exits (the host reaps it in the
//     background: the record comes after the tree has ended).
//
// Starting the supervisor for the command put a Go program's start-up
// (several milliseconds) before every command. So when a command ends
// the host starts the next one ahead, a spare (spare_linux.go): the
// same executable, death signal and process group, waiting on a Unix
// socket for a command, whose argv, environment, directory, standard
// files and status descriptor it then receives (SCM_RIGHTS). From there
// it is the supervisor above. The host keeps its end of the socket until
// the command ends: the spare reading its end means the host died, and
// it ends the tree; an idle spare exits on it. There is one spare per
// executable; a command that comes while none is idle waits for the one
// starting, or gets a supervisor started for it.
//
// "No child left" is read from wait4(-1, WNOHANG) returning ECHILD: with
// the subreaper bit every living descendant has an ancestor chain ending
// at the supervisor, so a command that leaves nothing behind costs no
// /proc scan.
//
// Cgroups are not used (they need delegation or privileges, and the
// machines this runs on often have cgroup v1 without cgroup.kill).
//
// # Limits
//
// A process stops being a descendant only by being started by someone
// else: a daemon asked over IPC (systemd-run, at, a D-Bus activation,
// `docker run`, an ssh remote command) is out of reach. A descendant that
// makes itself a subreaper keeps its own orphans, but it is still a
// descendant and is killed; its orphans then come to the supervisor. A
// process that forks faster than the /proc walk can kill is killed
// round after round, for at most killRoundsFor. If the supervisor itself
// is killed with SIGKILL (by the OOM killer, say), its tree goes to init;
// the records kept by Track let the next host sweep it (see Sweep).
//
// # Leftover sweep
//
// Track records each running supervisor under a directory (pid and start
// time of the host and of the supervisor, start times from
// /proc/<pid>/stat field 22, so a reused pid never matches). Sweep, run
// when a shell is created, kills the trees of records whose host is gone
// and whose supervisor is still alive with the recorded start time, and
// removes the records.
package procsup
