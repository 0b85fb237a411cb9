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
	// GitPaths are the .git entries the scan found, mounted read-only:
	// what DisarmNewRepositories compares with after the command.
	GitPaths []string
	// Ops, from CommandOps only, are the mounts the confinement parent
	// makes for this command, in bwrap's syntax (package zygote).
	Ops []string
}

// Args returns the bubblewrap invocation that confines a command run in
// cwd to the policy. The sandbox's root is empty but for what is
// mounted, in this order (later mounts win):
//
//   - the SystemRoots that exist, read-only (symbolic links at the top,
//     /bin → usr/bin, as links); a fresh /dev, a /proc for the new PID
//     namespace, an empty private /tmp, /run and /var/tmp; with the
//     network allowed, the resolver configuration /etc/resolv.conf links
//     to under /run;
//   - an empty, read-only home directory (deny by default), then, deepest
//     last, the HomeToolchains and AllowRead paths read-only and the
//     workspace and AllowWrite paths read-write, each under its resolved
//     name and the name it was given;
//   - every git control path (gitctl) read-only: every .git directory or
//     file the workspace scan finds (nested repositories, submodules)
//     and the core.hooksPath target (created empty when missing, so
//     hooks cannot be planted there either);
//   - a mask over every hidden path that exists and is shown
//     (DefaultHide, Hide, the host's own secrets, agent and daemon
//     sockets) and every secret the workspace scan finds, on the
//     symlink-resolved target: an empty read-only tmpfs over a
//     directory, /dev/null without device access over a file (reading
//     and writing it fail with "Permission denied").
//
// Every directory between a writable root and a git control path or a
// masked secret is bound onto itself first: a mount point cannot be
// renamed or removed (EBUSY), so a command can neither move .git aside
// and plant a fresh one nor move a masked secret out from under its
// mask (`mv config node_modules`).
//
// Then no capabilities (they matter when the host runs as root), a new
// PID namespace (every process dies with the command), a new
// network namespace unless NetworkAllow, --die-with-parent,
// --new-session (no TIOCSTI into the editor's terminal), --chdir cwd.
// TerminalArgs is the same without --new-session, for a command given a
// pseudo-terminal of its own.
//
// It fails when st is not Available, a policy path is relative or holds
// a NUL byte, the workspace does not exist, or cwd is not an existing
// directory the sandbox shows (Readable). A cwd outside the workspace is
// fine: the command reads there, and Launch.CwdWritable says its writes
// fail.
func (p Policy) Args(st Status, cwd string) (Launch, error) { return p.args(st, cwd, false) }

// TerminalArgs is Args for a command whose standard streams are a
// pseudo-terminal the caller allocated for it and made its controlling
// terminal (bwrap then runs as the session leader): without
// --new-session the command keeps that terminal, so Ctrl-C, window
// sizes and /dev/tty work. TIOCSTI into it pushes input into the
// command's own terminal, which the command could have written anyway;
// the user's terminal is not reachable (the editor's runs in another
// session, and its sockets are hidden).
func (p Policy) TerminalArgs(st Status, cwd string) (Launch, error) { return p.args(st, cwd, true) }

func (p Policy) args(st Status, cwd string, terminal bool) (Launch, error) {
	r, err := p.checkLaunch(st, cwd)
	if err != nil {
		return Launch{}, err
	}
	ws := r.workspace
	a := append([]string{st.Path}, baseMounts()...)
	if p.Network == NetworkAllow {
		a = append(a, resolverArgs()...)
	}
	a = append(a, r.bindArgs(p.Workspace, p.AllowWrite)...)
	scan := scanWorkspace(ws, MaxScanEntries)
	protect, err := r.protectArgs(scan)
	if err != nil {
		return Launch{}, err
	}
	a = append(a, protect...)
	iso := isolation(p.Network)
	if terminal {
		iso = slices.DeleteFunc(iso, func(o string) bool { return o == "--new-session" })
	}
	a = append(a, iso...)
	a = append(a, "--chdir", filepath.Clean(cwd), "--")
	return Launch{
		Prefix:      a,
		Env:         []string{"TMPDIR=" + privateTmp},
		Complete:    scan.complete,
		CwdWritable: r.writable(cwd),
		GitPaths:    scan.gitPaths,
	}, nil
}

// checkLaunch validates the policy and a command's working directory,
// and returns the policy's rules: what every confined command, however
// it is started (Args, CommandOps), checks first.
func (p Policy) checkLaunch(st Status, cwd string) (rules, error) {
	if !st.Available {
		return rules{}, fmt.Errorf("sandbox: bubblewrap is unavailable: %s", st.Reason)
	}
	r := p.rules()
	if err := p.validate(r); err != nil {
		return rules{}, err
	}
	if cwd == "" || !filepath.IsAbs(cwd) || strings.IndexByte(cwd, 0) >= 0 {
		return rules{}, fmt.Errorf("sandbox: working directory %q is not an absolute path", cwd)
	}
	if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
		return rules{}, fmt.Errorf("sandbox: working directory %q is not an existing directory", cwd)
	}
	if fi, err := os.Stat(r.workspace); err != nil || !fi.IsDir() {
		return rules{}, fmt.Errorf("sandbox: workspace %q is not an existing directory", p.Workspace)
	}
	if !r.readable(cwd) {
		return rules{}, fmt.Errorf("sandbox: working directory %q is hidden inside the sandbox (outside the workspace and the system directories, or a secret)", cwd)
	}
	return r, nil
}

// baseMounts start every sandbox: the SystemRoots read-only, a fresh
// /dev, a /proc for the new PID namespace, empty private /tmp, /run and
// /var/tmp.
func baseMounts() []string {
	var a []string
	for _, root := range SystemRoots {
		fi, err := os.Lstat(root)
		switch {
		case err != nil:
		case fi.Mode()&os.ModeSymlink != 0:
			if target, err := os.Readlink(root); err == nil {
				a = append(a, "--symlink", target, root)
			}
		case fi.IsDir():
			a = append(a, "--ro-bind", root, root)
		}
	}
	a = append(a, "--dev", "/dev", "--proc", privateProc)
	return append(a, privateDirs()...)
}

// privateDirs are the empty private /tmp, /run and /var/tmp every
// command starts with.
func privateDirs() []string {
	a := []string{"--tmpfs", privateTmp, "--tmpfs", privateRun}
	if fi, err := os.Lstat(privateVarTmp); err == nil && fi.IsDir() {
		a = append(a, "--tmpfs", privateVarTmp)
	}
	if fi, err := os.Lstat("/var/run"); err == nil && fi.IsDir() {
		a = append(a, "--tmpfs", "/var/run") // not the usual link to /run
	}
	return a
}

// resolverArgs shows, when the network is allowed, the resolver
// configuration that /etc/resolv.conf links to under the private /run
// (systemd-resolved's stub-resolv.conf): names resolve through the
// network as on the host, and no daemon's socket is shown.
func resolverArgs() []string {
	real, err := filepath.EvalSymlinks("/etc/resolv.conf")
	if err != nil || !within(real, privateRun) {
		return nil
	}
	if fi, err := os.Stat(real); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	return []string{"--ro-bind", real, real}
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

// mount is one mount of the home and bound-back layer.
type mount struct {
	src, dst string
	kind     int // mountTmpfs, mountRO, mountRW
}

const (
	mountTmpfs = iota
	mountRO
	mountRW
)

// bindArgs hides the home directory behind an empty read-only tmpfs and binds
// back the read roots read-only and the write roots read-write, each at
// its resolved path and, when it was given through a symlink that the
// sandbox would not show, at the given path too. Shallower mounts go
// first (a tmpfs before a bind at the same depth) so a deeper mount is
// not covered by a shallower one.
func (r rules) bindArgs(workspace string, allowWrite []string) []string {
	var ms []mount
	if r.home != "/" && r.home != "" && exists(r.home) && !slices.Contains(SystemRoots, r.home) {
		ms = append(ms, mount{dst: r.home, kind: mountTmpfs})
	}
	for _, p := range r.readRoots {
		if exists(p) {
			ms = append(ms, mount{p, p, mountRO})
		}
	}
	given := append([]string{workspace}, allowWrite...)
	for i, w := range r.writeRoots {
		if !exists(w) {
			continue
		}
		ms = append(ms, mount{w, w, mountRW})
		if g := filepath.Clean(given[i]); g != w && !r.visibleUnbound(g) {
			ms = append(ms, mount{w, g, mountRW})
		}
	}
	slices.SortStableFunc(ms, func(x, y mount) int {
		if d := strings.Count(x.dst, "/") - strings.Count(y.dst, "/"); d != 0 {
			return d
		}
		return x.kind - y.kind
	})
	var a, readOnly []string
	for _, m := range ms {
		switch m.kind {
		case mountTmpfs:
			a = append(a, "--tmpfs", m.dst)
			readOnly = append(readOnly, m.dst)
		case mountRO:
			a = append(a, "--ro-bind", m.src, m.dst)
		default:
			a = append(a, "--bind", m.src, m.dst)
		}
	}
	// The empty home is made read-only once the binds inside it have
	// their mount points: a write there fails (and Blocked says so)
	// rather than vanishing with the command as if it had worked.
	for _, dst := range readOnly {
		a = append(a, "--remount-ro", dst)
	}
	return a
}

// protectArgs pins, then mounts read-only, the git control paths the
// scan found (and the core.hooksPath target, created empty on the host
// when missing, as git init creates .git/hooks) and Policy.ReadOnly,
// then masks the hidden
// paths and the secrets the scan found. Pins come first: a bind of a
// directory onto itself would otherwise cover a mount made inside it.
func (r rules) protectArgs(scan scanResult) ([]string, error) {
	var ro []string
	if r.hooksPath != "" {
		if !exists(r.hooksPath) {
			if err := os.MkdirAll(r.hooksPath, 0o755); err != nil {
				return nil, fmt.Errorf("sandbox: creating the hooks directory %s: %w", r.hooksPath, err)
			}
		}
		ro = append(ro, r.hooksPath)
	}
	for _, g := range scan.gitPaths {
		if _, err := os.Stat(g); err == nil {
			ro = append(ro, resolve(g))
		}
	}
	for _, p := range r.readOnly {
		if exists(p) {
			ro = append(ro, p)
		}
	}
	ro = r.inWriteRoots(ro)
	masks := r.maskTargets(scan.secrets)
	var pins []string
	for _, path := range append(append([]string(nil), ro...), r.inWriteRoots(masks)...) {
		pins = append(pins, r.parentsInWriteRoots(path)...)
	}
	slices.Sort(pins) // a directory sorts before what it holds
	var a []string
	for _, dir := range slices.Compact(pins) {
		a = append(a, "--bind", dir, dir)
	}
	slices.Sort(ro)
	for _, path := range slices.Compact(ro) {
		a = append(a, "--ro-bind", path, path)
	}
	redact, hide := r.gitConfigMounts(scan.gitPaths)
	a = append(a, redact...)
	return append(a, maskArgs(append(masks, hide...))...), nil
}

// gitConfigMounts covers every git config file a confined command could
// read that holds a credential — the repositories' (.git/config,
// config.worktree, .git/modules/*/config) and the user's shown from home
// — with a redacted copy (the remote's URL without its token,
// sendemail.smtpPass as ***), so `cat .git/config` or `git remote -v`
// inside prints no credential while git still reads the rest. A file
// that cannot be redacted for sure is returned to be masked instead.
func (r rules) gitConfigMounts(gitPaths []string) (args, hide []string) {
	var files []string
	for _, g := range gitPaths {
		dir := g
		if fi, err := os.Stat(g); err != nil {
			continue
		} else if !fi.IsDir() {
			continue // a gitdir file: its repository is found where it lies, when scanned
		}
		files = append(files, filepath.Join(dir, "config"), filepath.Join(dir, "config.worktree"))
		modules, _ := filepath.Glob(filepath.Join(dir, "modules", "*", "config"))
		files = append(files, modules...)
	}
	for _, rel := range homeGitConfigs {
		files = append(files, filepath.Join(r.home, rel))
	}
	for _, f := range files {
		real := resolve(f)
		if !r.visible(real) {
			continue
		}
		copyPath, hideIt := redactedCopy(real)
		switch {
		case hideIt:
			hide = append(hide, real)
		case copyPath != "":
			args = append(args, "--ro-bind", copyPath, real)
		}
	}
	return args, hide
}

// inWriteRoots keeps the paths inside a writable root (elsewhere the
// sandbox is read-only already).
func (r rules) inWriteRoots(paths []string) []string {
	var out []string
	for _, p := range paths {
		if slices.ContainsFunc(r.writeRoots, func(w string) bool { return within(p, w) && p != w }) {
			out = append(out, p)
		}
	}
	return out
}

// parentsInWriteRoots lists the directories between the writable root
// holding path and path itself.
func (r rules) parentsInWriteRoots(path string) []string {
	var out []string
	for _, w := range r.writeRoots {
		if !within(path, w) {
			continue
		}
		for dir := filepath.Dir(path); dir != w && within(dir, w); dir = filepath.Dir(dir) {
			out = append(out, dir)
		}
	}
	return out
}

// maskTargets are the resolved paths to mask: the hidden paths and the
// secrets the scan found, sorted, without duplicates, what the sandbox
// does not show anyway (the private /tmp, the hidden home…), what does
// not exist, and what lies inside a directory already masked — bwrap
// would have to create that mount point inside the empty read-only
// tmpfs, and fail (a socket in the hidden runtime directory,
// ~/.docker/config.json when ~/.docker is hidden too).
func (r rules) maskTargets(found []string) []string {
	reals := append([]string(nil), r.hiddenReal...)
	for _, path := range found {
		reals = append(reals, resolve(path))
	}
	slices.Sort(reals) // a directory sorts before what it holds
	reals = slices.Compact(reals)
	var out, maskedDirs []string
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
		}
		out = append(out, real)
	}
	return out
}

// maskArgs hides each target: an empty read-only tmpfs over a
// directory, /dev/null over a file.
func maskArgs(targets []string) []string {
	var a []string
	for _, real := range targets {
		fi, err := os.Stat(real)
		if err != nil {
			continue
		}
		if fi.IsDir() {
			a = append(a, "--tmpfs", real, "--remount-ro", real)
		} else {
			a = append(a, "--ro-bind", "/dev/null", real)
		}
	}
	return a
}
