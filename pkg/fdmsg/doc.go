// Package fdmsg sends one JSON message with open files attached
// (SCM_RIGHTS) over a Unix SOCK_SEQPACKET socket, and receives it: each
// message is one packet, so a reader never sees half of one, and the
// files travel with the message that names their use.
//
// Two parts of magenta hand a command to a process that is already
// running: the sandbox's confinement parent (package zygote) and a spare
// process supervisor (package procsup). Both send the command's argv,
// environment and directory with its standard files this way. The
// package imports only the standard library, so magenta-supervisor,
// which links it, stays small.
package fdmsg
