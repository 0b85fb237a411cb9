package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Network says whether a confined command may reach the network.
type Network int

const (
	// NetworkDeny gives the command its own network namespace with only
	// an empty loopback: no DNS, no outside hosts, not even the host's
	// loopback listeners.
	NetworkDeny Network = iota
	// NetworkAllow shares the host's network.
	NetworkAllow
)

// DefaultHide lists the secrets under the home directory that no
// confined command can read or write: keys, cloud and registry
// credentials, password stores, browser profiles (their cookies are
// logged-in sessions). Paths are relative to Policy.Home. The home
// directory is hidden as a whole (only HomeToolchains and AllowRead are
// shown), so these matter where a toolchain path, AllowRead or the
// workspace itself covers them — and to the file guard and the checker,
// which ask before reading them.
var DefaultHide = []string{
	".ssh", ".aws", ".gnupg", ".netrc", ".git-credentials", ".npmrc", ".yarnrc.yml",
	".pypirc", ".cargo/credentials.toml", ".gem/credentials", ".m2/settings.xml",
	".gradle/gradle.properties", ".config/gh", ".config/hub", ".config/gcloud", ".azure",
	".docker/config.json", ".kube", ".password-store", ".local/share/keyrings",
	".vault-token", ".terraform.d/credentials.tfrc.json",
	".mozilla", ".config/google-chrome", ".config/chromium", ".config/BraveSoftware",
}

// systemHide are the host's own secrets under the SystemRoots, hidden
// like DefaultHide: readable by root only, but a host run as root (a
// dev container) would otherwise show them. Globs are expanded when the
// rules are built.
var systemHide = []string{
	"/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/ssl/private",
	"/etc/ssh/ssh_host_*_key", "/etc/sudoers.d", "/var/lib/docker", "/var/lib/containerd",
}

// The sandbox mounts its own /tmp (empty, private) and /proc (its own
// PID namespace): the host's files there are neither readable nor
// writable. The host's /proc/<pid>/environ holds the editor's API keys.
// /run holds the sockets of the host's daemons (nscd, which resolves
// names even without a network; D-Bus; systemd; a user's GNU screen
// sessions): the sandbox's /run is empty too. /var/tmp is shared by
// every user like /tmp.
const (
	privateTmp    = "/tmp"
	privateProc   = "/proc"
	privateRun    = "/run"
	privateVarTmp = "/var/tmp"
)

// Policy is what a confined command may touch. The same value drives
// the bubblewrap arguments (Args) and the answers Readable and Writable
// give the file guard and the shell checker. All paths are absolute;
// Hide entries may also be relative to Home.
type Policy struct {
	// Workspace is readable and writable, except the git paths that run
	// code at the user's next git command (.git/hooks, .git/config,
	// core.hooksPath, …: see gitProtected) and the secret files in it.
	Workspace string
	// Home is the user's home directory, against which DefaultHide and
	// relative Hide entries are taken.
	Home string
	// Hide lists more paths to hide, beyond DefaultHide.
	Hide []string
	// AllowWrite lists more writable paths (a build cache, say).
	AllowWrite []string
	// AllowRead lists more paths a confined command reads (absolute, or
	// relative to Home): beyond SystemRoots, the workspace and the
	// HomeToolchains, nothing of the host's files is shown.
	AllowRead []string
	// Env names more environment variables a confined command keeps,
	// beyond EnvAllow.
	Env []string
	// Network is NetworkDeny (the zero value) or NetworkAllow.
	Network Network
	// ReadOnly lists paths that stay read-only even inside the
	// workspace: the host's own programs (magenta's checkout as the
	// workspace), which run outside the sandbox or as its confinement
	// parent, and which a confined command must not replace.
	ReadOnly []string
}

// validate rejects a policy whose paths would make a malformed or
// meaningless argv: every path must be absolute and free of NUL bytes.
func (p Policy) validate(r rules) error {
	check := func(what, path string) error {
		if path == "" || !filepath.IsAbs(path) {
			return fmt.Errorf("sandbox: %s %q is not an absolute path", what, path)
		}
		if strings.IndexByte(path, 0) >= 0 {
			return fmt.Errorf("sandbox: %s %q contains a NUL byte", what, path)
		}
		return nil
	}
	if err := check("workspace", p.Workspace); err != nil {
		return err
	}
	if err := check("home", p.Home); err != nil {
		return err
	}
	for _, h := range p.Hide {
		if strings.IndexByte(h, 0) >= 0 || h == "" {
			return fmt.Errorf("sandbox: hide entry %q is empty or contains a NUL byte", h)
		}
	}
	for i, h := range r.hiddenReal {
		// A mask over the workspace (or /) would hide the work itself.
		if within(r.workspace, h) || within(filepath.Clean(p.Workspace), r.hidden[i]) {
			return fmt.Errorf("sandbox: hide entry %q covers the workspace %s", r.hidden[i], p.Workspace)
		}
	}
	for _, w := range p.AllowWrite {
		if err := check("allowWrite entry", w); err != nil {
			return err
		}
	}
	for _, w := range r.writeRoots {
		if w == "/" {
			return errors.New("sandbox: a writable / would cover the private /tmp, /dev and /proc and make the whole system writable")
		}
	}
	if p.Network != NetworkDeny && p.Network != NetworkAllow {
		return errors.New("sandbox: network must be NetworkDeny or NetworkAllow")
	}
	return nil
}

// Readable reports whether a confined command reads the host's file at
// path: false for hidden home secrets (and whatever they link to), for
// secret names inside the workspace (secrets.In, outside the skipped
// dependency directories), and for the host's /tmp and /proc other than
// the workspace, Home and AllowWrite paths under /tmp. A relative path
// is never readable: callers judge absolute paths. Symlinks are resolved
// where they exist, so a link to a secret is as unreadable as the secret.
func (p Policy) Readable(path string) bool { return p.rules().readable(path) }

// Writable reports whether a write by a confined command reaches the
// host's file at path: it must be readable, inside the workspace or an
// AllowWrite path, and not one of the git paths that run code
// (gitProtected). The sandbox's /tmp is writable but private, so host paths
// there are not Writable unless they are inside the workspace.
func (p Policy) Writable(path string) bool { return p.rules().writable(path) }

// within reports whether path is root or below it (both cleaned).
func within(path, root string) bool {
	if root == "/" {
		return true
	}
	return path == root || strings.HasPrefix(path, root+"/")
}

// resolve returns path with symlinks resolved as far as the path exists:
// the longest existing prefix is resolved and the rest appended, so a
// file not yet created in a linked directory resolves to where it would
// be created. A dangling link resolves to its target: writing through
// it creates the target.
func resolve(path string) string { return resolveHops(path, maxLinkHops) }

// maxLinkHops bounds the dangling links resolve follows (a loop of them
// would otherwise recurse forever); the kernel's own limit is 40.
const maxLinkHops = 40

func resolveHops(path string, hops int) string {
	path = filepath.Clean(path)
	if real, err := filepath.EvalSymlinks(path); err == nil {
		return real
	}
	parent := filepath.Dir(path)
	if parent == path {
		return path
	}
	if target, err := os.Readlink(path); err == nil && hops > 0 {
		if !filepath.IsAbs(target) {
			target = filepath.Join(parent, target)
		}
		return resolveHops(target, hops-1)
	}
	return filepath.Join(resolveHops(parent, hops), filepath.Base(path))
}

// resolveUnder is resolve(filepath.Join(base, rel)) for a base already
// resolved, at one lstat per existing component instead of resolving
// the whole path again for each missing one.
func resolveUnder(base, rel string) string {
	parts := strings.Split(filepath.Clean(rel), "/")
	for i, part := range parts {
		next := filepath.Join(base, part)
		fi, err := os.Lstat(next)
		switch {
		case err != nil:
			return filepath.Join(append([]string{next}, parts[i+1:]...)...)
		case fi.Mode()&os.ModeSymlink != 0:
			return resolve(filepath.Join(append([]string{next}, parts[i+1:]...)...))
		}
		base = next
	}
	return base
}

// exists reports whether path exists (a dangling link does not).
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
