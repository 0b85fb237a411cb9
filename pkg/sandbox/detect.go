package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// MinVersion is the oldest bubblewrap whose options Args relies on.
const MinVersion = "0.4.0"

// DetectTimeout bounds Detect when its context has no deadline.
const DetectTimeout = 5 * time.Second

// Status says whether commands can be confined here, and if not, why.
type Status struct {
	// Available is true when bwrap was found, is new enough, and a
	// trial sandbox with new PID and network namespaces ran.
	Available bool
	// Reason says why not, in words for the user, when Available is false.
	Reason string
	// Version is bwrap's version ("0.8.0"), when it answered.
	Version string
	// Path is the bwrap executable used.
	Path string
}

// Detect finds bwrap (at bwrapPath, or on PATH when it is empty), checks
// its version against MinVersion, and runs `true` in a trial sandbox
// with the mounts and namespaces every confined command gets (a new
// /proc, /dev and /tmp, new PID and network namespaces, no
// capabilities) to learn whether this kernel and container allow them. It
// takes a few tens of milliseconds (two bwrap runs); run it once, in the
// background, at host start. It gives up after DetectTimeout when ctx
// has no deadline.
func Detect(ctx context.Context, bwrapPath string) Status {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DetectTimeout)
		defer cancel()
	}
	name := bwrapPath
	if name == "" {
		name = "bwrap"
	}
	path, err := exec.LookPath(name)
	if err != nil {
		if bwrapPath == "" {
			return Status{Reason: "bwrap not found on PATH (install bubblewrap)"}
		}
		return Status{Reason: fmt.Sprintf("bwrap not found at %s: %v", bwrapPath, err)}
	}
	st := Status{Path: path}

	out, err := run(ctx, path, "--version")
	if err != nil {
		st.Reason = fmt.Sprintf("%s --version failed: %s", path, describe(err, out))
		return st
	}
	st.Version = parseVersion(out)
	if st.Version == "" {
		st.Reason = fmt.Sprintf("%s --version gave no version: %q", path, firstLine(out))
		return st
	}
	if !atLeast(st.Version, MinVersion) {
		st.Reason = fmt.Sprintf("bwrap %s is too old (need ≥ %s)", st.Version, MinVersion)
		return st
	}

	// The trial uses the options every confined command uses: in some
	// containers the namespaces work but mounting /proc is refused.
	trial := append(append(baseMounts(), isolation(NetworkDeny)...), "true")
	out, err = run(ctx, path, trial...)
	if err != nil {
		st.Reason = "bwrap cannot create the sandbox (user namespaces disabled, or /proc not mountable in a container?): " + describe(err, out)
		return st
	}
	st.Available = true
	return st
}

// run runs bwrap with a closed stdin and returns its combined output.
// bwrap gets a parent-death signal, so a host that exits while the
// detection runs (Neovim quit at once) leaves no bwrap behind under
// init; the signal follows the thread that started the child, so the
// goroutine keeps its thread until the child has been waited for.
func run(ctx context.Context, path string, args ...string) ([]byte, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.WaitDelay = time.Second
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	return cmd.CombinedOutput()
}

// describe joins an exec error and the first line of what bwrap said.
func describe(err error, out []byte) string {
	if line := firstLine(out); line != "" {
		return fmt.Sprintf("%v: %s", err, line)
	}
	return err.Error()
}

func firstLine(b []byte) string {
	line, _, _ := bytes.Cut(bytes.TrimSpace(b), []byte("\n"))
	return string(line)
}

// parseVersion reads "bubblewrap 0.8.0" (the format since 0.1).
func parseVersion(out []byte) string {
	fields := strings.Fields(firstLine(out))
	if len(fields) != 2 || fields[0] != "bubblewrap" {
		return ""
	}
	return fields[1]
}

// atLeast compares dotted versions numerically; a non-numeric part
// counts as 0, so "0.10.0" is newer than "0.9.1".
func atLeast(version, min string) bool {
	v, m := strings.Split(version, "."), strings.Split(min, ".")
	for i := range max(len(v), len(m)) {
		a, b := part(v, i), part(m, i)
		if a != b {
			return a > b
		}
	}
	return true
}

func part(parts []string, i int) int {
	if i >= len(parts) {
		return 0
	}
	digits := parts[i]
	if j := strings.IndexFunc(digits, func(r rune) bool { return r < '0' || r > '9' }); j >= 0 {
		digits = digits[:j]
	}
	n, _ := strconv.Atoi(digits)
	return n
}
