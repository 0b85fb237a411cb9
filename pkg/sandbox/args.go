package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Launch is how to start one confined command.
type Launch struct {
	// Prefix is bwrap and its options, ending in "--": append the
	// command ("bash", "--noprofile", "--norc", "-c", command).
	Prefix []string
	// Env holds KEY=VALUE settings the command's environment needs on top
	// of the caller's: TMPDIR=/tmp, because the host's TMPDIR may name a
	// directory the sandbox hides or cannot write.
	Env []string
	// Complete is false when the workspace scan stopped at
	// MaxScanEntries: secrets past the bound are not masked.
	Complete bool
	// CwdWritable says whether writes in the working directory reach the
	// host (false when it lies outside the workspace and AllowWrite).
	CwdWritable bool
}

// Args returns the bubblewrap invocation that confines a command run in
// cwd to the policy. It mounts, in this order (later mounts win):
//
//   - the host's root read-only, a fresh /dev, a /proc for the new PID
//     namespace, an empty private /tmp;
//   - Home read-only if it lies under /tmp; the workspace and the
//     existing AllowWrite paths read-write (shallower first);
//   - the git paths that run code at the user's next git command
//     read-only again, their parent directories pinned so they cannot be
//     moved aside (gitProtected, protectArgs; a missing .git/hooks is
//     created empty on the host, as git init would);
//   - a mask over every hidden path that exists (DefaultHide, Hide) and
//     every secret the workspace scan finds, on the symlink-resolved
//     target: an empty read-only tmpfs over a directory, /dev/null
//     without device access over a file (reading and writing it fail
//     with "Permission denied").
//
// Then no capabilities (they matter when the host runs as root), a new
// PID namespace (every process dies with the command), a new
// network namespace unless NetworkAllow, --die-with-parent,
// --new-session (no TIOCSTI into the editor's terminal), --chdir cwd.
//
// It fails when st is not Available, a policy path is relative or holds
// a NUL byte, the workspace does not exist, or cwd is not an existing
// directory the sandbox shows (Readable). A cwd outside the workspace is
// fine: the command reads there, and Launch.CwdWritable says its writes
// fail.
func (p Policy) Args(st Status, cwd string) (Launch, error) {
	if !st.Available {
		return Launch{}, fmt.Errorf("sandbox: bubblewrap is unavailable: %s", st.Reason)
	}
	r := p.rules()
	if err := p.validate(r); err != nil {
		return Launch{}, err
	}
	if cwd == "" || !filepath.IsAbs(cwd) || strings.IndexByte(cwd, 0) >= 0 {
		return Launch{}, fmt.Errorf("sandbox: working directory %q is not an absolute path", cwd)
	}
	if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
		return Launch{}, fmt.Errorf("sandbox: working directory %q is not an existing directory", cwd)
	}
	if !r.readable(cwd) {
		return Launch{}, fmt.Errorf("sandbox: working directory %q is hidden inside the sandbox (a secret, or the host's /tmp or /proc)", cwd)
	}
	ws := r.workspace
	if fi, err := os.Stat(ws); err != nil || !fi.IsDir() {
		return Launch{}, fmt.Errorf("sandbox: workspace %q is not an existing directory", p.Workspace)
	}

	a := append([]string{st.Path}, rootMounts...)
	a = append(a, r.bindArgs(p.Home)...)
	protect, err := r.protectArgs()
	if err != nil {
		return Launch{}, err
	}
	a = append(a, protect...)
	scan := scanWorkspace(ws, MaxScanEntries)
	a = append(a, r.maskArgs(scan.secrets)...)
	a = append(a, isolation(p.Network)...)
	a = append(a, "--chdir", filepath.Clean(cwd), "--")
	return Launch{
		Prefix:      a,
		Env:         []string{"TMPDIR=" + privateTmp},
		Complete:    scan.complete,
		CwdWritable: r.writable(cwd),
	}, nil
}

// rootMounts start every sandbox: the host's root read-only, a fresh
// /dev, a /proc for the new PID namespace, an empty private /tmp.
var rootMounts = []string{
	"--ro-bind", "/", "/",
	"--dev", "/dev",
	"--proc", privateProc,
	"--tmpfs", privateTmp,
}

// isolation returns the options that follow the mounts. Run as root (a
// dev container, say), bwrap keeps the capabilities: without --cap-drop
// the command could unmount the masks and remount the host read-write.
func isolation(n Network) []string {
	a := []string{"--cap-drop", "ALL", "--unshare-pid"}
	if n == NetworkDeny {
		a = append(a, "--unshare-net")
	}
	return append(a, "--die-with-parent", "--new-session")
}

// bind is one mount of a host directory onto itself.
type bind struct {
	path     string
	writable bool
}

// bindArgs mounts the workspace and AllowWrite paths read-write and, when
// the private /tmp would hide it, Home read-only. Shallower paths go
// first so a deeper mount is not covered by a shallower one.
func (r rules) bindArgs(home string) []string {
	var binds []bind
	for _, w := range r.writeRoots {
		if exists(w) {
			binds = append(binds, bind{w, true})
		}
	}
	home = resolve(home)
	covered := slices.ContainsFunc(r.writeRoots, func(w string) bool { return within(home, w) })
	if within(home, privateTmp) && exists(home) && !covered {
		binds = append(binds, bind{home, false})
	}
	slices.SortStableFunc(binds, func(x, y bind) int {
		return strings.Count(x.path, "/") - strings.Count(y.path, "/")
	})
	var a []string
	for _, b := range binds {
		if b.writable {
			a = append(a, "--bind", b.path, b.path)
		} else {
			a = append(a, "--ro-bind", b.path, b.path)
		}
	}
	return a
}

// protectArgs mounts the protected git paths read-only again. It first
// binds every directory between a writable root and a protected path
// onto itself: a mount point cannot be renamed (EBUSY), so a command
// cannot move .git (or .husky) aside and plant a fresh one with hooks.
// A missing hooks directory is created, empty, on the host first (as git
// init would), so that it too is a read-only mount rather than a place
// to create hooks.
func (r rules) protectArgs() ([]string, error) {
	var pins, ro []string
	for _, p := range r.protected {
		if p.hooksDir && !exists(p.path) {
			if err := os.MkdirAll(p.path, 0o755); err != nil {
				return nil, fmt.Errorf("sandbox: creating the hooks directory %s: %w", p.path, err)
			}
		}
		if !exists(p.path) {
			continue
		}
		ro = append(ro, p.path)
		for _, w := range r.writeRoots {
			if !within(p.path, w) {
				continue
			}
			for dir := filepath.Dir(p.path); dir != w && within(dir, w); dir = filepath.Dir(dir) {
				pins = append(pins, dir)
			}
		}
	}
	slices.Sort(pins) // a directory sorts before what it holds
	var a []string
	for _, dir := range slices.Compact(pins) {
		a = append(a, "--bind", dir, dir)
	}
	for _, path := range ro {
		a = append(a, "--ro-bind", path, path)
	}
	return a, nil
}

// maskArgs hides the configured paths and the workspace secrets found,
// each on its resolved target, skipping what does not exist, what the
// private /tmp already hides, and what lies inside a directory already
// masked: bwrap would have to create that mount point inside the empty
// read-only tmpfs, and fail (a socket in the hidden runtime directory,
// ~/.docker/config.json when ~/.docker is hidden too).
func (r rules) maskArgs(found []string) []string {
	reals := append([]string(nil), r.hiddenReal...)
	for _, path := range found {
		reals = append(reals, resolve(path))
	}
	slices.Sort(reals) // a directory sorts before what it holds
	reals = slices.Compact(reals)
	var a, maskedDirs []string
	for _, real := range reals {
		if !r.visible(real) || slices.ContainsFunc(maskedDirs, func(d string) bool { return within(real, d) }) {
			continue
		}
		fi, err := os.Stat(real)
		if err != nil {
			continue
		}
		if fi.IsDir() {
			maskedDirs = append(maskedDirs, real)
			a = append(a, "--tmpfs", real, "--remount-ro", real)
		} else {
			a = append(a, "--ro-bind", "/dev/null", real)
		}
	}
	return a
}
