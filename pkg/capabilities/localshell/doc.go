// Package localshell implements capabilities.Shell on the local machine.
//
// # Running
//
// Execute runs exactly the string it is given with
// `bash --noprofile --norc -c <command>` (the language the permission
// checks parse), in a new process group (Setpgid), under a per-call
// process supervisor (package procsup; Options.Supervisor, default this
// executable when it called procsup.MainIfSupervisor), with stdin from
// /dev/null (a command that reads stdin sees EOF at once), in
// ExecOptions.Cwd, else Options.Cwd (a relative ExecOptions.Cwd is taken
// from Options.Cwd), else the host's directory.
//
// The environment (Options.Env, or os.Environ() at New) is hardened
// against prompts, pagers and code planted in a repository: PAGER,
// GIT_PAGER, MANPAGER=cat; GIT_EDITOR, EDITOR, VISUAL=true;
// GIT_TERMINAL_PROMPT=0; GIT_ASKPASS, SSH_ASKPASS empty;
// GCM_INTERACTIVE=never; TERM=dumb; NO_COLOR=1; and git configuration
// through GIT_CONFIG_COUNT / GIT_CONFIG_KEY_n / GIT_CONFIG_VALUE_n:
// core.fsmonitor=false, core.hooksPath=/dev/null, core.pager=cat,
// core.sshCommand="ssh -oBatchMode=yes", diff.external and
// credential.helper empty. Inherited GIT_CONFIG_KEY_/VALUE_ pairs below
// an inherited GIT_CONFIG_COUNT are kept, renumbered, ahead of ours (the
// later entry wins, so ours do); GIT_CONFIG_PARAMETERS is dropped.
//
// Options.Launch replaces how the command is started (a Launcher turns
// command, cwd and hardened environment into the local process; package
// docker's runs `docker exec`); the output pipeline, log, timeout and
// supervisor stay the same. Its Launch.End ends the command where it
// really runs (in a container, out of reach of the local process tree)
// on timeout and cancellation, before the local process is terminated,
// which is then given supervisorMargin past the grace period to exit by
// itself and report the remote status.
//
// # Ending
//
// The timeout is ExecOptions.Timeout, or ShellDefaultTimeout, capped at
// Options.MaxTimeout (default 10 minutes); ExecOptions.OnStart is told
// the timeout that applies once the command runs. On timeout or
// cancellation Execute returns the partial result with TimedOut or
// Cancelled set and a nil error.
//
// Supervised (the default where procsup is available): the host sends
// SIGTERM to the supervisor, which sends SIGTERM to every descendant of
// itself — the group, and whatever left it with setsid or a double fork:
// as a child subreaper it inherits those orphans — and SIGKILL
// ShellTerminateGrace later to whatever is left. When bash ends by
// itself the supervisor ends its leftovers the same way before
// reporting bash's status, and if the host dies (even by SIGKILL) its
// parent-death signal makes it end the tree. The host kills the
// supervisor's group itself only if it has not finished
// supervisorMargin after the grace period. Each supervisor is recorded
// under <LogRoot>/procs; New sweeps the records of dead hosts
// (procsup.Sweep).
//
// Unsupervised (Options.Unsupervised, or no supervisor available): the
// whole group gets SIGTERM, then SIGKILL ShellTerminateGrace later if a
// live member remains; background jobs still in the group are terminated
// the same way when the main process ends, but a process that left the
// group (setsid) escapes. "Live" is read from /proc: an orphan whose new
// parent never reaps it (some container inits) stays a zombie member of
// the group, which kill(-pgid, 0) still reports.
//
// Either way a command's background jobs do not outlive the call. That
// is the safe default for an agent, and it is what lets Execute return at
// once when a background child still holds stdout open. After that, the
// pipes are read to EOF for at most half a second, then abandoned.
//
// ExitCode is the exit status, or -1 with Signal set ("SIGTERM",
// "SIGKILL", Linux names) when a signal ended the main process (the
// supervisor reports bash's wait status on a pipe). A command that cannot
// start (missing directory, no bash) is an error.
//
// # Output
//
// Two goroutines read stdout and stderr into pooled 64 KB buffers and
// hand them, in arrival order, to one processor goroutine that owns all
// line state: it needs no locks and calls OnOutput (every line, in
// order, never concurrently) with none held. OnTail, the live view's
// hook, is called from the same goroutine on a ticker
// (capabilities.LiveTailInterval) with the lines it retains anyway, so
// following a command costs nothing per line: plain output keeps the
// fast path (a word-wise copy into the log, only the last lines of a
// chunk filed as the tail), which a per-line callback rules out. Pipes
// are enlarged to 1 MB where the kernel allows, so a fast writer rarely
// waits for us.
//
// Lines are assembled across reads. Each is cleaned: a trailing CR
// (CRLF) dropped; invalid UTF-8 replaced with U+FFFD (one per invalid
// run); other control characters (C0 but tab, DEL, C1) removed, a
// backspace taking back the rune before it; carriage-return redraws
// folded the way a terminal shows them —
// each CR-separated segment overwrites the line from column 0, one
// column per rune, so the tail of a longer earlier segment stays
// ("downloading\rdone" gives "doneloading") unless the segment erases the
// line (CSI K / 0K / 2K); ANSI sequences stripped with
// github.com/charmbracelet/x/ansi.Strip. Chunks that are pure ASCII
// without control bytes but tab and newline take a fast path that only
// splits and logs.
//
// A line longer than ShellMaxLineBytes is cut in the middle as
// "<head> … [N bytes cut] … <tail>", the whole within the limit. Lines
// up to 4×ShellMaxLineBytes raw are buffered and cleaned whole; longer
// ones are never held: only their first and last 2×ShellMaxLineBytes raw
// bytes are kept while streaming (a 1 MB line costs 8 KB), each end is
// cleaned on its own, and N counts the raw bytes left out (exact for
// plain text).
//
// Memory is bounded whatever the output: the first ShellHeadLines lines,
// a ring of the last ShellTailLines lines (both streams interleaved in
// arrival order) and TotalLines. Past the head, the fast path copies into
// the ring only the lines no later line of the same chunk displaces.
//
// Binary output: the first 4 KB of each stream are sniffed; a NUL, or
// more than 30 % of bytes that are neither text controls nor valid UTF-8
// (judged once 256 bytes are seen), switches that stream to counting:
// no more lines, Binary set, BinaryBytes = the stream's total bytes.
// Lines emitted before the switch stay.
//
// # Interactive commands
//
// ExecOptions.Interactive runs the command with a pseudo-terminal
// (github.com/creack/pty; Options.OpenPTY replaces the opener) as stdin,
// stdout and stderr, sized TerminalDefaultRows × TerminalDefaultCols,
// TERM=xterm-256color and NO_COLOR unset (the rest of the hardening
// stays). The command leads a new session with the PTY as controlling
// terminal, so its process group is the terminal's foreground one:
// Ctrl-C written to the master interrupts it, a resize sends it
// SIGWINCH, and /dev/tty opens. Supervised, the supervisor starts it
// that way (procsup.StartTerminal) and stays outside the session, so
// ending the tree works as for pipes; unsupervised, Setsid/Setctty at
// fork. Options.LaunchInteractive, when set, launches interactive
// commands (package docker's adds -it).
//
// The master is read by one goroutine (each read takes all the PTY
// holds, up to 64 KB) that keeps the raw stream's first
// TerminalRawMaxBytes for Terminal.Subscribe's replay, calls the
// subscribers, and queues the read for a second goroutine that feeds a
// headless terminal emulator (github.com/charmbracelet/x/vt, whose
// replies to terminal queries a third goroutine copies back to the
// master: unread, they would block it). The text the model, the log,
// OnOutput and OnTail get is the emulator's, one Stdout stream: each line as it
// scrolls off the screen, then the final screen, trailing blank lines
// dropped — progress bars and redraws in their final state, cursor
// movement applied, colours gone, lines longer than the width wrapped
// at it as the terminal shows them; a full-screen program's alternate
// screen leaves nothing once it returns to the main one. The usual
// cleaning, head/tail retention and log then apply to those lines.
// Emulating a scroll moves every cell of the screen, so plain CRLF lines
// (printable ASCII) that would only scroll through the screen within one
// read bypass the emulator, wrapped at the width as it would have
// (TestBulkMatchesTheEmulator checks text and screen against the
// emulator). `seq 1 1000000` (6.9 MB) then takes 0.8–1.0 s, against
// 0.57–0.63 s for seq on a PTY whose master is merely read and discarded
// (the kernel's PTY is most of the cost) and 0.04–0.07 s with pipes
// (BenchmarkSeqInteractive pty, pty-relay, pipe; medians of a loaded
// 2-core machine); through the emulator alone it took 23 s.
// After the command ended the master is read until EIO (every slave
// descriptor closed) or, past the half-second drain, until it has been
// silent for half a second, at most 10 s; what the emulator has not
// taken by then is left out of the text, with a note. The command's
// output is untrusted: numeric parameters of control sequences are cut
// to four digits before the emulator (whose work grows with some: one
// "repeat 99999999 times" kept it busy 38 s), and a panic of the
// emulator is recovered into a note and a fresh, blank emulator.
//
// OnTerminal gets the Terminal once the command started: Subscribe,
// Write (keystrokes), Resize (PTY and emulator), Screen, Done (closed
// when Execute is about to return, the master closed) and
// WaitingForInput: no output for TerminalPromptSilence and a last
// non-blank screen line that looks like a prompt (ends in one of
// ":?>$#])", or holds "(y/n)", "[y/n]" or "password"; looksLikePrompt).
// When the timeout or a cancellation ends a command that was waiting so,
// ExecResult.WaitingForInput is set; ExecResult.Interactive is set for
// every PTY run.
//
// Without a PTY (OpenPTY failed) the command runs with pipes, stdin
// /dev/null, and ExecResult.NotInteractive says why; OnTerminal is not
// called. A confined interactive command (ExecOptions.Sandbox) gets its
// PTY too: the Confiner is asked for a terminal prefix (for bubblewrap,
// without --new-session), the supervisor makes bwrap the session leader
// with the PTY as its controlling terminal, and the command inside
// keeps it — Ctrl-C, SIGWINCH and /dev/tty work as unconfined. TIOCSTI
// can only push input into the command's own PTY, never into the
// editor's terminal (another session).
//
// # Log
//
// Every call writes <LogRoot>/threads/<thread>/tools/<request>/bashCommand.log.
// LogRoot (default /tmp/magenta) is created 0700; when it exists but is
// a symlink, not a directory or not the user's, <LogRoot>-<uid> is used
// and Shell.Warning says so (Shell.LogRoot is the one in use); when that
// is unusable too, Execute fails with the reason. Directories are 0700,
// the file 0600, opened with O_NOFOLLOW.
// Ids are reduced to safe segments (letters, digits, '_', and '.'/'-'
// when not leading; anything else becomes '_'; empty or all-dot ids
// become "unknown"; at most 128 bytes) and the joined path is checked to
// stay under LogRoot. The first line is "$ <command>", further lines of a
// multi-line command prefixed "> "; then every cleaned line prefixed
// "stdout: " or "stderr: " (a binary stream gets a note and its byte
// count, not its bytes); the last line is "exit 0 after 1.234s",
// "signal SIGTERM after 2.001s (timed out)", "… (cancelled)",
// "start error: …" or "not started (cancelled)". Writes are buffered
// (256 KB, handed to a writer goroutine once output is large, and flushed
// at least once a second so a running command's log can be followed);
// the file is flushed and closed on every path. A log that cannot be
// created is an error (the command is not run).
//
// Limits: a log past Options.LogMaxBytes (DefaultLogMaxBytes, 8 MB) keeps
// its first 3/4 (ended at a line) in the file as it is written and its
// last 1/4 in memory, written at the end after a line
// "[magenta: N bytes dropped here: …]"; ExecResult.LogDroppedBytes is N.
// A write error (disk full) does not turn a finished run into an error:
// the log ends with "[magenta: log incomplete: <error>]" and the last
// line — when even that cannot be written, the last 4 KB are cut to make
// room — and ExecResult.LogError says why. Threads' directories are
// pruned in the background at New and after every LogQuota/8 bytes
// logged: those unchanged for LogMaxAge (DefaultLogMaxAge, 7 days), then
// the oldest until LogRoot/threads is within LogQuota (DefaultLogQuota,
// 1 GB), sparing threads changed in the last 10 minutes.
package localshell
