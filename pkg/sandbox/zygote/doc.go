// Package zygote runs confined commands through a long-lived
// confinement parent, so that a confined command costs little more than
// an unconfined one.
//
// Started by bubblewrap once per session (sandbox.Policy.ParentArgs),
// the parent holds what every command shares: the system directories
// read-only, the home and bound-back layer, a read-only /dev, and —
// with the network denied — one network namespace with only loopback.
// Creating that network namespace and bubblewrap's own setup took most
// of a confined command's time; here they are paid once.
//
// For each command, a client (this package's program, run by the
// process supervisor in place of bwrap) connects to the parent's socket
// and hands over its standard streams, environment, working directory,
// argv and the command's mounts (sandbox.Policy.CommandOps, computed
// again for every command from a fresh workspace scan). The parent
// starts the command's init in fresh mount, PID and IPC namespaces; the
// init mounts a new /proc (its kernel knobs read-only, as bubblewrap
// does), a new devpts and /dev/shm, empty /tmp, /run and /var/tmp, then
// the command's mounts; it empties its capability bounding set, drops
// every capability, sets no_new_privs and runs the command. When the
// command ends, the init kills everything left in the PID namespace and
// exits with the command's status, which the parent sends back to the
// client, whose exit status it becomes. A signal the client receives is
// forwarded to every process of the command; a client that disappears
// (killed by its supervisor's sweep) has the command's PID namespace
// killed with it.
//
// # What is shared, and the threat model
//
// A confined command must not affect the next one through anything the
// parent keeps. What is shared, and why that holds:
//
//   - The parent's mount namespace. Each command gets a private copy
//     (propagation private), so mounts it could make do not reach the
//     parent; it has no capabilities to make any anyway. Every writable
//     filesystem of the parent's is covered per command by a fresh one
//     (/tmp, /run, /var/tmp, /var/run, /dev/shm, /dev/pts) or was shared
//     on purpose (the workspace and sandbox.allowWrite, as with bwrap
//     per command); /dev itself is read-only.
//   - The network namespace (network denied): only loopback. Sockets a
//     command binds die with its processes, all killed when it ends;
//     its routes and firewall need CAP_NET_ADMIN, which it lacks. Two
//     commands running at the same time can reach each other over
//     loopback, as two unconfined ones could.
//   - The parent's PID namespace: each command's is nested inside it,
//     so the command sees neither the parent nor other commands, and
//     cannot signal or trace them.
//   - The parent process: it reads requests only from its socket, in a
//     0700 directory of the host's that no sandbox shows; its
//     executable is mounted read-only, and every command has a fresh
//     /run over it. The command's init is not dumpable, so a command
//     cannot trace it while it still holds capabilities.
//
// Commands given a pseudo-terminal (interactive ones) keep starting
// bubblewrap each time: the terminal must stay their controlling one.
// When the parent cannot start or answer, commands are confined by
// bubblewrap per command, as before; nothing runs unconfined.
package zygote
