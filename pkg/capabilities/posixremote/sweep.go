package posixremote

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/remoteagent"
)

// CallMarker is the variable that tags every process of one command on
// the machine (its value is a random id, NewMarker): ending the command means
// ending each process whose /proc/<pid>/environ carries it, which reaches
// what left the process group with setsid as well. A process that
// clears its environment (env -i) escapes.
const CallMarker = remoteagent.CallMarker

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
// 1 s; the longer bound costs nothing when the listing settles). That
// leaves a gap: an exec that starts after the first check read the
// process and ends before the second does is seen by neither, while the
// marker scan between them read it empty (with two commands at once in
// a container, about one left-behind `setsid sleep` in 50 escaped).
// So the marker scan is taken again after the second check, and pids is
// the union: a process missed by both had to be mid-exec twice, at the
// two moments. (The bash listing, one pass, has no such gap.) A process
// that outlives SIGKILL (stuck in the kernel) is given up on after as
// many ticks again.
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
		before=$(unsettled); pids=$(marked "$1"); after=$(unsettled); again=$(marked "$1")
		pids=$pids${again:+ $again}
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

// WrapScript $1=command $2=bash|sh $3=id: runs the command tagged with
// the marker, then ends what it left running, then exits with the
// command's status. The wrapper itself is not tagged, so ending the
// command from outside spares it and it reports the status (143 for
// SIGTERM); its trap keeps it alive if it is signalled all the same.
var WrapScript = graceLine + sweepFunc + `quiet=$(unsettled)
trap 'ended=1' TERM INT HUP
if [ "$2" = bash ]; then ` + CallMarker + `=$3 bash --noprofile --norc -c "$1"; else ` + CallMarker + `=$3 sh -c "$1"; fi
rc=$?
sweep "` + CallMarker + `=$3"
exit $rc`

// EndScript $1=id: ends one command's processes from outside.
var EndScript = graceLine + sweepFunc + `sweep "` + CallMarker + `=$1"`

// NewMarker is a fresh random id for CallMarker.
func NewMarker() (string, error) {
	var id [8]byte
	if _, err := rand.Read(id[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(id[:]), nil
}

// bashListings replace sweepFunc's listing when the wrapper runs under
// bash (where the machine has it): one pass over the processes, made
// with builtins only. The POSIX listing starts a subshell and a grep per
// scan, and a grep per process with an empty environment; the sweep at
// the end of every command takes three scans, the wrapper one more at
// its start, which made `echo hi` cost ~4× a bare ssh call on a loaded
// 2-core machine (every fork there costs 15–40 ms). One pass reads each
// process's environment once: it has the marker (pids), or it reads
// empty (u: outside $quiet and not a zombie, a process caught mid-exec,
// and the pass is taken again), or neither. The POSIX three scans leave
// a gap one pass does not: an exec that starts after the first scan read
// the process and ends before the third does is seen by neither, while
// the middle scan missed the marker (a left-behind `setsid sleep` once
// survived the sweep that way, with commands running in parallel on one
// machine). An unreadable environment (another user's process) is
// skipped, as grep -s skips it.
const bashListings = `readenv() {
	e=()
	{ mapfile -d '' e < "/proc/$1/environ"; } 2>/dev/null
}
scanv() {
	pids= u=
	local f p x k v s
	for f in /proc/[0-9]*/environ; do
		p=${f#/proc/}; p=${p%/environ}
		[ "$p" = "$$" ] && continue
		readenv "$p" || continue
		if [ ${#e[@]} -eq 0 ]; then
			case " $quiet " in *" $p "*) continue;; esac
			s=
			{ while read -r k v _; do
				if [ "$k" = State: ]; then s=$v; break; fi
			done < "/proc/$p/status"; } 2>/dev/null
			[ "$s" = Z ] && continue
			[ -e "/proc/$p" ] && u="$u $p"
			continue
		fi
		for x in "${e[@]}"; do
			if [ "$x" = "$1" ]; then pids="$pids $p"; break; fi
		done
	done
}
listed() {
	n=0
	while :; do
		scanv "$1"
		[ -z "$u" ] && return 0
		pause; n=$((n+1)); [ "$n" -lt "$ticks" ] || return 0
	done
}
`

// WrapScriptBash is WrapScript for bash: the listing above, the
// starting one without a subshell, and the final sweep in a detached
// background subshell, so the status reaches ssh without waiting for it
// (the channel still stays open while a left-behind process holds its
// output, until the sweep ends that process). The subshell ignores the
// hangup a closing remote terminal sends. Run it with bash.
var WrapScriptBash = strings.NewReplacer(
	"quiet=$(unsettled)\n", bashListings+"scanv ''; quiet=$u\n",
	"sweep \""+CallMarker+"=$3\"\nexit $rc", "( trap '' HUP INT TERM; sweep \""+CallMarker+"=$3\" ) </dev/null >/dev/null 2>&1 &\nexit $rc",
).Replace(WrapScript)
