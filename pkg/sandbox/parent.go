package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ParentExecutable is where the confinement parent's own executable is
// mounted inside its sandbox: the host's binaries may live in a
// directory the sandbox hides (under the home directory). Every command
// gets a fresh /run over it.
const ParentExecutable = "/run/.magenta-parent"

// ParentCapabilities are what the confinement parent keeps, and each
// command's init until it has made its mounts: CAP_SYS_ADMIN for new
// namespaces and mounts, CAP_SETPCAP to empty the bounding set before
// the command runs. The command itself runs with none (package zygote).
var ParentCapabilities = []string{"CAP_SYS_ADMIN", "CAP_SETPCAP"}

// ParentArgs returns the bubblewrap invocation that starts the session's
// confinement parent (package zygote): the program at self, mounted at
// ParentExecutable, run with args in a sandbox holding what does not
// change from one command to the next — the system directories
// read-only, a /dev made read-only (its device nodes stay usable), the
// home and bound-back layer as Args makes it, the resolver when the
// network is allowed, the redacted git configs' directory (a source for
// the commands' mounts, covered by their private /tmp) — with new PID
// and IPC namespaces, a network namespace kept for the session unless
// NetworkAllow, and only ParentCapabilities.
//
// Each command then gets, from the parent, fresh mount, PID and IPC
// namespaces and the mounts CommandOps lists, which are computed again
// for every command: secrets and repositories created since the parent
// started are masked and pinned as with Args.
func (p Policy) ParentArgs(st Status, self string, args ...string) ([]string, error) {
	r, err := p.checkLaunch(st, p.Workspace)
	if err != nil {
		return nil, err
	}
	if !filepath.IsAbs(self) || strings.IndexByte(self, 0) >= 0 {
		return nil, fmt.Errorf("sandbox: the confinement parent %q is not an absolute path", self)
	}
	a := append([]string{st.Path}, baseMounts()...)
	a = append(a, "--remount-ro", "/dev")
	if p.Network == NetworkAllow {
		a = append(a, resolverArgs()...)
	}
	a = append(a, r.bindArgs(p.Workspace, p.AllowWrite)...)
	if dir := redactedDir(); os.MkdirAll(dir, 0o700) == nil {
		if fi, err := os.Lstat(dir); err == nil && fi.IsDir() && fi.Mode().Perm() == 0o700 {
			a = append(a, "--ro-bind", dir, dir)
		}
	}
	a = append(a, "--ro-bind", self, ParentExecutable, "--cap-drop", "ALL")
	for _, c := range ParentCapabilities {
		a = append(a, "--cap-add", c)
	}
	a = append(a, "--unshare-pid", "--unshare-ipc")
	if p.Network == NetworkDeny {
		a = append(a, "--unshare-net")
	}
	a = append(a, "--die-with-parent", "--new-session", "--chdir", "/", "--", ParentExecutable)
	return append(a, args...), nil
}

// CommandOps returns, for one command run in cwd through the
// confinement parent, the mounts its init makes in the command's fresh
// mount namespace, in bwrap's syntax (Launch.Ops): empty private /tmp,
// /run and /var/tmp, the resolver, the home and bound-back layer again
// (it may lie under /tmp), then the pins, read-only git control paths,
// redacted git configs and masks of the workspace scan made now — the
// same as Args's. It checks what Args checks.
func (p Policy) CommandOps(st Status, cwd string) (Launch, error) {
	r, err := p.checkLaunch(st, cwd)
	if err != nil {
		return Launch{}, err
	}
	ops := privateDirs()
	if p.Network == NetworkAllow {
		ops = append(ops, resolverArgs()...)
	}
	ops = append(ops, r.bindArgs(p.Workspace, p.AllowWrite)...)
	scan := scanWorkspace(r.workspace, MaxScanEntries)
	protect, err := r.protectArgs(scan)
	if err != nil {
		return Launch{}, err
	}
	return Launch{
		Ops:         append(ops, protect...),
		Env:         []string{"TMPDIR=" + privateTmp},
		Complete:    scan.complete,
		CwdWritable: r.writable(cwd),
		GitPaths:    scan.gitPaths,
	}, nil
}
