// Package sshenv is the environment of a thread that works on another
// machine over SSH: a Conn to the host, and FileIO and Shell that act
// there through it, built by NewEnvironment from a Config{Host, Cwd}.
// What it shares with package docker — the sh scripts of its FileIO, the
// wrapper and sweep of its Shell, the probe — is package posixremote;
// the Conn is its posixremote.Runner. Hosts lists the aliases of an
// ssh_config (for completion); Conn.RealPath resolves a remote path.
//
// # The connection: the user's OpenSSH client
//
// Everything goes through the `ssh` found on PATH, so the user's
// ~/.ssh/config, keys, agent, ProxyJump and known_hosts apply exactly as
// in their terminal; nothing here reads keys or host files itself (a Go
// SSH library would have to re-implement all of that and would drift).
// Every call passes:
//
//   - BatchMode=yes: ssh never prompts (no password, passphrase or
//     "continue connecting?"), so nothing ever waits on the host's
//     stdin. An unknown or changed host key fails with ErrHostKey, a
//     refused key with ErrAuth, a host that cannot be reached with
//     ErrUnreachable; each message says what to do (classify parses
//     ssh's stderr after its exit 255).
//   - ControlPath=<dir>/master.sock in a private 0700 directory (one
//     per Conn, so a fixed name; a stat tells whether the master is
//     gone). Dial starts one master (`-o ControlMaster=yes -N -f`,
//     ControlPersist so an idle one ends by itself); every command and
//     file operation is then a channel on it (`-o ControlMaster=no`: a
//     call never becomes a master, which would keep its stdout open for
//     as long as it persists). The master forwards nothing: no agent,
//     no X11, none of the config's port forwardings.
//   - ServerAliveInterval (Config.AliveInterval, 3 tries): a host that
//     stops answering (network cut, machine frozen — the tests pause the
//     container) is declared lost; the master exits and the calls on it
//     with it.
//
// When a call exits 255 the Conn asks the master (`ssh -O check`, a
// local socket round trip); if it is gone the call fails with
// ErrConnectionLost (a command's error names its log) and the next call
// starts a new master. Close ends the master (`ssh -O exit`).
//
// Remote strings are parsed by the remote user's login shell
// (sshd runs `$SHELL -c`): every argument is quoted by quote, whose
// spelling means the same to POSIX shells and to fish, and the login
// shell only ever execs sh or bash with the script and its arguments —
// paths and commands are never interpolated into script text. A login
// script that prints on a non-interactive session (a noisy ~/.bashrc)
// breaks FileIO as it breaks scp; the probe reports it.
//
// # Files
//
// Files is posixremote's FileIO (see there: a header line before `cat`
// for reads, writes through a length-checked temporary file renamed over
// the target, a per-path lock for Update); a call that exits 255 with
// the master gone is the Conn's failure, not the script's. The remote
// machine needs sh, cat, stat -c (GNU or busybox), mkdir, chmod, mv, rm,
// readlink. Each operation costs one ssh client start and one channel.
//
// # Commands
//
// Shell is posixremote's Shell — localshell (output pipeline, logs on the
// host, timeout, abort, supervisor of the local ssh client) — with a
// launcher that runs
// `ssh -T host 'exec bash --noprofile --norc -c <script> …'` on the
// master (`-tt` for an interactive command: ssh, on localshell's PTY,
// switches it to raw mode and relays keystrokes and window changes to a
// terminal sshd opens remotely; Ctrl-C reaches the remote command). The
// script enters the call's directory (a missing one is
// capabilities.ErrNotExist, as locally), drops the variables localshell
// drops locally (BASH_ENV, ENV, CDPATH, …), exports the hardened ones
// (PAGER=cat, GIT_TERMINAL_PROMPT=0, the git config overrides) on top of
// the remote session's own environment — the host's is not sent — and
// runs the wrapper.
//
// Ending the whole remote tree: posixremote's marker and sweep, as in
// package docker, rather than a supervisor shipped to the host (the
// remote machine may be any Linux of any architecture; the sweep needs
// only sh, grep and /proc). Under bash the wrapper is
// posixremote.WrapScriptBash: the same listings with bash builtins, since
// every fork of grep cost 15–40 ms on a loaded machine, and the final
// sweep detached so the status returns without waiting for it. On
// timeout or cancel Launch.End sweeps the marker from a second channel.
// What it does not cover: a process that clears its environment (env -i)
// escapes, and a machine without /proc (macOS) gets no sweep.
//
// A command cut off by a lost connection cannot be swept then: its
// marker is kept (Launch.After sees the master's socket or process gone;
// a master that gives up removes its socket before it exits, and the
// call's client sees the end only when it has) and the next connection
// sweeps it first. If the host process dies, the supervisor ends the
// local ssh client; the remote command's marker is lost with the host
// (as in Docker).
//
// # Cost
//
// BenchmarkShellEcho and its neighbours in bench_test.go, on a shared
// 2-core machine (load ~2; medians of 3): `echo hi` through Shell 53 ms;
// the same remote command by a bare ssh on the master 44 ms
// (BenchmarkWrappedEcho); a bare `ssh -o ControlPath=… host 'echo hi'`
// 19 ms; a fresh ssh without a master ~260 ms. So the remote wrapper
// costs ~25 ms (an exec of bash for the script, a fork+exec of the
// command's bash, which the wrapper must outlive to sweep; the bash
// listings and the detached final sweep took it down from ~+150 ms on a
// loaded machine) and the local side ~9 ms (the supervisor process,
// localshell's logs; Options.Unsupervised drops the supervisor, and with
// it ending the local ssh client when the host dies). Closing the rest
// needs a remote helper that stays up on one long-lived channel — a
// program shipped on first use, left for later. A 10 MB read through
// FileIO takes ~162 ms, a bare `ssh host cat` ~151 ms.
//
// Tests run against a real sshd in a container (package sshtest, image
// built by scripts/build-sshd-image.sh when missing) with keys,
// known_hosts and an ssh_config made in a temporary directory. One
// container serves every test of the package (sshtest.Shared), each with
// a Conn of its own, in parallel; the tests that pause the host get one
// of their own. The Shell and FileIO suites are package remotetest's,
// which package docker runs too.
package sshenv
