// Package docker is the environment of a thread that works inside a
// running Docker container: FileIO, Shell and Searcher that act in the
// container, built by NewEnvironment from a Config{Container, Cwd,
// Context}. What it shares with package sshenv — the sh scripts of its
// FileIO, the wrapper and sweep of its Shell, the probe — is package
// posixremote; the container is its posixremote.Runner.
//
// # Engine access: the docker CLI
//
// Everything goes through the `docker` CLI found on PATH (DOCKER_HOST,
// DOCKER_CONTEXT and the user's CLI config apply as in their terminal).
// Config.Context names a CLI context (`docker context ls`; Contexts lists
// them): every call of the environment then passes `--context NAME`
// before its subcommand, which wins over DOCKER_HOST and DOCKER_CONTEXT.
// An unknown context is ErrNoSuchContext, naming it. The environment's
// Name stays "docker:<container>" under any context; Containers lists
// the default context's running containers, ContainersIn another's.
// The Engine API client (github.com/moby/moby/client v0.6.2, served here)
// was measured first: linked into bin/magenta-host it adds 0.6 MB to the
// 50.6 MB binary, 41 packages, and 0.8 ms (median of 21 runs, 4.2 → 5.0
// ms, GODEBUG=inittrace=1) and 0.5 MB of allocations to the package
// initialisation — within the first-toggle budget. It was not taken
// because the Shell reuses localshell whole (output pipeline, logs,
// timeout, the procsup supervisor), which launches an *exec.Cmd; with the
// API client exec needs its own stream demultiplexer and an inspect call
// for the exit code, and a second process model beside localshell's. The
// CLI costs no module. Per call it costs the CLI's start: `echo hi`
// through Shell takes ~77 ms against ~66 ms for a bare `docker exec`,
// most of both being the engine's exec (BenchmarkShellEcho,
// BenchmarkBareExecEcho), and a 10 MB file read through FileIO ~182 ms
// against ~155 ms for a bare `docker exec cat` (medians of 5 runs on a
// shared 2-core machine, noisy). Interactive commands did not need the
// API either: the CLI's `exec -it` under a local PTY gives the TTY and
// relays resizes.
//
// # Files
//
// Files is posixremote's FileIO: small POSIX sh scripts run with
// `docker exec` (`-i` when bytes go in): reads stream `cat` after a
// header line (a FIFO or device is refused before it is opened),
// writes land through a temporary file, length-checked, renamed over the
// target. A daemon refusal (a paused, stopped or removed container) is
// the container's Runner.Failure: ErrPaused, ErrNotRunning,
// ErrNoSuchContainer, naming the path. The container needs sh, cat,
// stat, mkdir, chmod, mv, rm and grep — busybox has them.
//
// # Commands
//
// Shell is posixremote's Shell with a launcher (localshell.Launcher) that
// runs `docker exec -w <cwd> -e <hardening> <container> sh -c <wrapper>`
// (posixremote.WrapScript). The wrapper runs the command with
// `bash --noprofile --norc -c` (`sh -c` when the image has no bash, found
// once at NewEnvironment) tagged with posixremote.CallMarker; ending the
// command — on timeout or cancel, from a second `docker exec` of
// posixremote.EndScript, and by the wrapper itself once the command
// exits — sweeps every process carrying the tag (SIGTERM, then SIGKILL
// after ShellTerminateGrace), which reaches processes that left the
// group with setsid (a process that clears its environment escapes;
// posixremote's doc says how the sweep copes with a process caught
// mid-exec). The environment inside is the
// container's own plus localshell's hardening; the host's is not passed.
// Logs stay on the host, where get_file reads them. When a command fails
// and the container is then not running (stopped or removed meanwhile)
// or paused, Execute returns an error saying so instead of a result; a
// call whose directory the container lacks fails with
// capabilities.ErrNotExist, as a local one does.
// If the host dies, the supervisor ends the local docker CLI but not the
// command in the container.
//
// # Interactive commands
//
// An interactive command (ExecOptions.Interactive) runs
// `docker exec -it …` with the same wrapper, the docker CLI itself on
// localshell's PTY: the CLI puts that terminal in raw mode, relays the
// keystrokes to a terminal the engine gives the command in the container
// (Ctrl-C there interrupts it: the wrapper traps it and sweeps as
// usual) and passes the local terminal's size on when it changes
// (asynchronously: a command can see the old size for a moment after
// Terminal.Resize). Ending it on timeout or cancel is the same marker
// sweep. The container's terminal turns the two streams into one.
//
// # Search
//
// Searcher runs the container's rg through package ripgrep (ripgrep.Run
// parses its --json output); NewEnvironment leaves Environment.Searcher
// nil when the container has no rg (NoSearcher says so). A search that
// times out or has enough matches kills the local CLI; rg in the
// container ends at its next write (it is not tagged for a sweep).
//
// # Errors
//
// NewEnvironment fails, each with its own message, when the CLI is
// missing (ErrNotInstalled), no daemon answers (ErrNoDaemon), the
// context is unknown (ErrNoSuchContext), the container is unknown
// (ErrNoSuchContainer), not running (ErrNotRunning)
// or paused (ErrPaused), or the cwd is not a directory in it
// (capabilities.ErrNotExist).
//
// Tests run against a real engine with the test image (package
// dockertest), through the suites of package remotetest that package
// sshenv runs too.
package docker
