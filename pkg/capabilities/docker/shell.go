package docker

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path"
	"strings"
	"syscall"
	"time"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/localshell"
)

// callMarker is the variable that tags every process of one command in
// the container (its value is a random id): ending the command means
// ending each process whose /proc/<pid>/environ carries it, which reaches
// what left the process group with setsid as well. A process that
// clears its environment (env -i) escapes.
const callMarker = "MAGENTA_CALL"

// sweepFunc defines sweep MARKER: SIGTERM to every process carrying
// MARKER except this shell, again every $tick until none is left or the
// grace period ($grace ticks) is over, then SIGKILL to those still
// carrying it (a zombie's environ is empty, so an exited child its parent
// has not reaped does not hold it up).
//
// A process between the two halves of an exec has an empty environ
// (the kernel sets the new image's environment last), so a listing taken
// then misses it: `setsid sleep 9 & exit` is caught that way when the
// wrapper sweeps right after the shell exits. A listing therefore counts
// only when no live process outside $quiet (those with an empty
// environment before the command started) read empty just before and
// just after it; otherwise it is taken again after a tick, for at most
// 5 s (on a loaded machine — CI running a dozen test packages at once —
// a left-behind `setsid sleep` once survived the sweep when this was
// 1 s; the longer bound costs nothing when the listing settles). A process that outlives SIGKILL (stuck in the kernel)
// is given up on after as many ticks again.
const sweepFunc = `tick=
pause() {
	if [ -z "$tick" ]; then
		if sleep 0.001 2>/dev/null; then tick=0.02; ticks=250; else tick=1; ticks=5; grace=$grace_s; fi
	fi
	sleep "$tick"
}
marked() {
	for f in $(grep -ls "$1" /proc/[0-9]*/environ); do
		p=${f#/proc/}; p=${p%/environ}
		[ "$p" = "$$" ] || echo "$p"
	done
}
unsettled() {
	for f in $(grep -Ls . /proc/[0-9]*/environ); do
		p=${f#/proc/}; p=${p%/environ}
		case " $quiet " in *" $p "*) continue;; esac
		grep -qs '^State:[[:space:]]*Z' "/proc/$p/status" && continue
		[ -e "/proc/$p" ] && echo "$p"
	done
}
listed() {
	n=0
	while :; do
		before=$(unsettled); pids=$(marked "$1"); after=$(unsettled)
		[ -z "$before$after" ] && return 0
		pause; n=$((n+1)); [ "$n" -lt "$ticks" ] || return 0
	done
}
sweep() {
	listed "$1"
	[ -n "$pids" ] || return 0
	kill -TERM $pids 2>/dev/null
	waited=0
	while listed "$1"; [ -n "$pids" ]; do
		if [ "$waited" -ge "$grace" ]; then
			kill -KILL $pids 2>/dev/null
		else
			kill -TERM $pids 2>/dev/null
		fi
		pause; waited=$((waited + 1))
		[ "$waited" -lt $((grace + ticks)) ] || return 0
	done
	return 0
}
`

// graceLine sets the sweep's grace period, ShellTerminateGrace, in
// ticks of sweepTick (grace) and in whole seconds for a sleep that takes
// no fractions (grace_s); shell variables, not exported: the command
// does not see them.
var graceLine = fmt.Sprintf("grace=%d\ngrace_s=%d\nquiet=\n",
	ceilDiv(capabilities.ShellTerminateGrace, sweepTick), ceilDiv(capabilities.ShellTerminateGrace, time.Second))

// sweepTick is the sweep's polling period where sleep takes fractions;
// it must match tick in sweepFunc.
const sweepTick = 20 * time.Millisecond

func ceilDiv(d, unit time.Duration) int64 { return int64((d + unit - 1) / unit) }

// wrapScript $1=command $2=bash|sh $3=id: runs the command tagged with
// the marker, then ends what it left running, then exits with the
// command's status. The wrapper itself is not tagged, so ending the
// command from outside spares it and it reports the status (143 for
// SIGTERM); its trap keeps it alive if it is signalled all the same.
var wrapScript = graceLine + sweepFunc + `quiet=$(unsettled)
trap 'ended=1' TERM INT HUP
if [ "$2" = bash ]; then ` + callMarker + `=$3 bash --noprofile --norc -c "$1"; else ` + callMarker + `=$3 sh -c "$1"; fi
rc=$?
sweep "` + callMarker + `=$3"
exit $rc`

// endScript $1=id: ends one command's processes from outside.
var endScript = graceLine + sweepFunc + `sweep "` + callMarker + `=$1"`

// inspectTimeout bounds the check of the container's state after a
// command failed.
const inspectTimeout = 5 * time.Second

// Shell runs commands inside a container: localshell's output pipeline,
// log files (on the host), timeout and supervisor around a
// `docker exec` of bash (sh when the image has no bash). It is safe for
// concurrent use.
type Shell struct {
	c     *container
	cwd   string
	kind  string // "bash" or "sh"
	local *localshell.Shell
}

var _ capabilities.Shell = (*Shell)(nil)

// newShell returns a Shell for c; bash says whether the image has bash.
// opts configure the log root, caps and timeouts as for a local shell;
// its Cwd is the container directory of calls that set none, its Env and
// Launch are replaced (the container's own environment is used, hardened
// like a local command's).
func newShell(c *container, bash bool, opts localshell.Options) *Shell {
	kind := "sh"
	if bash {
		kind = "bash"
	}
	opts.Env = []string{} // not the host's: only the hardening reaches the container
	opts.Launch = execLauncher(c, kind, false)
	opts.LaunchInteractive = execLauncher(c, kind, true)
	return &Shell{c: c, cwd: opts.Cwd, kind: kind, local: localshell.New(opts)}
}

// StdinLauncher starts a command in the container as the shell's
// commands start (the wrapper that ends, at the end, everything the
// command started there), with its stdin attached (docker exec -i): a
// Docker thread's hooks read their event on it (pkg/hooks).
func (s *Shell) StdinLauncher() localshell.Launcher { return execLauncherFlag(s.c, s.kind, "-i") }

// execLauncher runs commands with `docker exec` of the wrapper script;
// kind is "bash" or "sh". An interactive one gets `-it`: the docker CLI,
// itself on the local PTY, puts that terminal in raw mode, relays the
// keystrokes to a terminal in the container (Ctrl-C there interrupts
// the command) and passes resizes on. The wrapper and its sweep are the
// same either way.
func execLauncher(c *container, kind string, interactive bool) localshell.Launcher {
	flag := ""
	if interactive {
		flag = "-it"
	}
	return execLauncherFlag(c, kind, flag)
}

// execLauncherFlag is execLauncher with docker exec's stdin flag ("",
// "-i", "-it").
func execLauncherFlag(c *container, kind, flag string) localshell.Launcher {
	return func(command, cwd string, env []string) (*localshell.Launch, error) {
		var id [8]byte
		if _, err := rand.Read(id[:]); err != nil {
			return nil, err
		}
		marker := hex.EncodeToString(id[:])
		args := []string{"exec"}
		if flag != "" {
			args = append(args, flag)
		}
		if cwd != "" {
			args = append(args, "-w", cwd)
		}
		for _, kv := range env {
			args = append(args, "-e", kv)
		}
		args = append(args, c.name, "sh", "-c", wrapScript, "sh", command, kind, marker)
		cmd := exec.Command(c.docker, args...)
		cmd.Env = os.Environ() // the CLI's own: DOCKER_HOST, its config
		end := func(ctx context.Context) error {
			cmd := c.command(ctx, "exec", c.name, "sh", "-c", endScript, "sh", marker)
			if out, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("ending the command in %s: %v: %s", c.name, err, out)
			}
			return nil
		}
		return &localshell.Launch{Cmd: cmd, End: end}, nil
	}
}

// LogRoot is where the logs go (on the host).
func (s *Shell) LogRoot() string { return s.local.LogRoot() }

// Warning is the local shell's message about the log root, or "".
func (s *Shell) Warning() string { return s.local.Warning() }

// Execute implements capabilities.Shell. A command that failed because
// the container stopped, vanished or is paused returns an error saying
// so (with the log's path) rather than a result that looks like the
// command's own failure.
func (s *Shell) Execute(ctx context.Context, command string, opts capabilities.ExecOptions) (*capabilities.ExecResult, error) {
	res, err := s.local.Execute(ctx, command, opts)
	if err != nil || (res.ExitCode == 0 && !res.TimedOut && !res.Cancelled) {
		return res, err
	}
	if res.ExitCode == 126 && res.TotalLines == 1 && strings.Contains(res.Head[0].Text, "chdir to cwd") {
		// The engine could not enter the directory: the command never
		// ran, as a local one in a missing directory.
		return nil, fmt.Errorf("%s: %w in container %s", s.dir(opts.Cwd), capabilities.ErrNotExist, s.c.name)
	}
	// The engine reports a command ended by a signal as 128+n.
	if (res.TimedOut || res.Cancelled) && res.ExitCode > 128 && res.ExitCode < 128+65 {
		res.ExitCode, res.Signal = -1, localshell.SignalName(syscall.Signal(res.ExitCode-128))
	}
	ictx, cancel := context.WithTimeout(context.WithoutCancel(ctx), inspectTimeout)
	defer cancel()
	if uerr := s.c.usable(ictx); uerr != nil {
		return nil, fmt.Errorf("%w; the command's output so far is in %s", uerr, res.LogPath)
	}
	return res, nil
}

// dir is the directory a call runs in, as localshell resolves it.
func (s *Shell) dir(cwd string) string {
	switch {
	case cwd == "":
		return s.cwd
	case path.IsAbs(cwd):
		return cwd
	}
	return path.Join(s.cwd, cwd)
}
