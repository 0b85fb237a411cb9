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
// readlink. A script with no input (stat, mkdir, remove, rename, the
// real path, the probe, the sweeps, the host's remote checks) runs
// through the remote agent when it runs (runner.RunScript, a
// posixremote.ScriptRunner); a read (its output streamed) and a write
// (its content on stdin) still cost an ssh client start and a channel.
//
// # Commands
//
// Shell is posixremote's Shell — localshell (output pipeline, logs on the
// host, timeout, abort) — with a launcher that hands each command to the
// remote agent (package remoteagent) when one runs, and otherwise runs
// `ssh -T host 'exec bash --noprofile --norc -c <script> …'` on the
// master, the command inside posixremote's wrapper.
//
// The agent. Dial (and a command that finds none) starts it: one call
// learns the machine (`uname -sm`) and whether the binary is in the
// remote user's cache (~/.cache/magenta/agent-ARCH-HASH) with this
// build's SHA-256 (a file changed there since — plant now, run
// unsupervised later — is not run), one uploads it when it is not
// (length-checked, renamed into place, older builds removed), and one channel runs it for as long as the Conn lives. The
// binary is magenta-supervisor (Config.AgentDir: the host passes the
// directory it sits in), for this machine's architecture or from
// magenta-supervisor-linux-ARCH beside it (`make remote-agents`). Each
// command is then a Request on that channel — argv, directory, the
// hardened variables on top of the remote session's environment, the
// dropped ones, the marker — and a fork there; no local supervisor is
// needed (nothing of the command runs on this machine). Timeout and
// cancel signal through the agent (group and marker); a command the
// agent's channel left (the agent killed, the connection lost) is an
// ErrConnectionLost error, never a result that looks like its own, and
// its marker is swept from a second channel, or by the next connection.
// When the channel closes — Close, the host dying (its ssh client's
// stdin ends), the master ending — the agent ends everything it runs.
// Setup failures (no binary for the machine, an upload refused, a
// login script that prints before the agent's hello) are kept and said
// by AgentStatus; commands then go on channels of their own. A command
// on a terminal always does: ssh, on localshell's PTY (`-tt`), puts it
// in raw mode and relays keystrokes and window changes to a terminal
// sshd opens remotely; Ctrl-C reaches the remote command.
//
// The wrapped path. The script enters the call's directory (a missing
// one is capabilities.ErrNotExist, as locally — the agent reports it the
// same way), drops the variables localshell drops locally (BASH_ENV,
// ENV, CDPATH, …), exports the hardened ones (PAGER=cat,
// GIT_TERMINAL_PROMPT=0, the git config overrides) on top of the remote
// session's own environment — the host's is not sent — and runs the
// wrapper: posixremote's marker and sweep, as in package docker
// (posixremote.WrapScriptBash under bash, its final sweep detached). On
// timeout or cancel Launch.End sweeps the marker from a second channel;
// the local ssh client runs under the supervisor. What neither path
// covers: a process that clears its environment (env -i) and leaves its
// group escapes, and a machine without /proc (macOS) gets no sweep.
//
// A command cut off by a lost connection cannot be swept then: its
// marker is kept (Launch.After sees the master's socket or process gone;
// a master that gives up removes its socket before it exits, and the
// call's client sees the end only when it has) and the next connection
// sweeps it first.
//
// # Search
//
// Searcher runs the remote rg (`exec sh -c 'unset RIPGREP_CONFIG_PATH;
// cd DIR; exec rg --json …'` on the master: the remote user's ripgrep
// config could add --follow) through package ripgrep, which parses its
// output as for a local search; NewEnvironment leaves
// Environment.Searcher nil when the probe found no rg. A search that
// times out or has enough matches kills the local client; rg there ends
// at its next write.
//
// # Cost
//
// BenchmarkShellEcho and its neighbours in bench_test.go, on a 2-core
// machine (medians of 3 runs): `echo hi` through Shell on the agent
// ~9.6 ms; the same without the agent (BenchmarkShellEchoWrapped) ~37
// ms; a bare `ssh -o ControlPath=… host 'echo hi'` on the same master
// ~16 ms (BenchmarkBareMasterEcho); a fresh ssh without a master ~260
// ms. The agent is faster than a bare channel because a channel costs
// an ssh client start here and a session, a login shell and an exec of
// bash there, where a command through the agent costs a frame each way
// and one fork+exec. A script through the agent (`true`) takes ~7 ms.
// An ssh thread's bash_command also lists the remote workspace before a
// command the checker allows (package host, sshcheck.go: ~20 ms, a
// pipeline of find and sh there), so `echo hi` there takes ~30 ms
// (BenchmarkSSHThreadEcho). A 10 MB read through FileIO (a channel)
// takes ~162 ms, a bare `ssh host cat` ~151 ms.
//
// Tests run against a real sshd in a container (package sshtest, image
// built by scripts/build-sshd-image.sh when missing) with keys,
// known_hosts and an ssh_config made in a temporary directory. One
// container serves every test of the package (sshtest.Shared), each with
// a Conn of its own, in parallel; the tests that pause the host get one
// of their own. The Shell and FileIO suites are package remotetest's,
// which package docker runs too.
package sshenv
