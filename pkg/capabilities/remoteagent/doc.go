// Package remoteagent runs the commands of a remote environment through
// one long-lived process on the remote machine, the agent, instead of a
// new channel (and a shell wrapper) per command.
//
// Why: over SSH every command used to be its own channel on the master
// connection — an ssh client started on the host, a session sshd forks,
// the user's login shell, then a wrapper script that tags the command,
// runs it and sweeps what it left behind. That cost ~2.4× a bare
// `ssh host 'echo hi'` (posixremote's wrapper alone ~25 ms). The agent
// is started once per connection, on one channel, and each command is
// then a frame to it and a fork+exec there: cheaper than even the bare
// channel.
//
// The agent is magenta-supervisor run with AgentFlag (MainIfAgent), a
// small static Linux binary the host uploads to the remote user's cache
// on first use (package sshenv does that; the name carries the binary's
// hash, so a rebuilt host uploads again and two hosts never share a
// stale one). Where no agent can run — another OS or architecture with
// no binary built for it, a home mounted noexec, a login shell that
// prints on non-interactive sessions — the caller keeps the per-command
// wrapper, which needs only sh.
//
// # Protocol
//
// Frames on the agent's stdin and stdout: a kind byte, a 4-byte command
// id, a 4-byte payload length (big endian), the payload (at most
// maxPayload bytes; anything else is a broken stream and ends the
// agent). The agent says hello first (its protocol version), so bytes a
// noisy login script printed before it are caught. The host sends start
// (a JSON Request) and signal (one byte); the agent sends the command's
// stdout and stderr as they come, then its exit (the raw wait status),
// after every byte of its output.
//
// # What a command gets, and how it is ended
//
// Each command runs in a process group of its own with the agent's
// environment (the remote session's, as with a channel of its own)
// minus Request.Unset, plus Request.Env and the call's marker
// (posixremote's CallMarker, so a sweep from a second channel finds
// what it started, as with the wrapper). A signal goes to the group and
// to every process carrying the marker, which reaches what left the
// group with setsid. When the command's first process exits, what it
// left running is swept (SIGTERM, SIGKILL after the grace period), the
// remaining output drained, and the status sent; the sweep does not
// delay the status. When the agent's stdin ends (the host closed the
// channel, the host died, the connection broke and sshd noticed) or it
// is sent SIGTERM/SIGHUP, it ends every command it runs the same way
// and exits. A process that clears its environment (env -i) and leaves
// its group escapes, as with the wrapper.
package remoteagent
