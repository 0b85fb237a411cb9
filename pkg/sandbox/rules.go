package sandbox

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/magenta-nvim/magenta/pkg/gitctl"
	"github.com/magenta-nvim/magenta/pkg/secrets"
)

// rules is a Policy with its paths cleaned and symlink-resolved once:
// resolving costs a few system calls per path, and Args consults the
// rules for every mask.
type rules struct {
	workspace  string   // resolved
	workspaces []string // as given and resolved: secrets are judged under both
	home       string   // resolved; hidden as a whole
	hidden     []string // as given (home-joined)
	hiddenReal []string // resolved, what the masks cover
	writeRoots []string // resolved workspace and AllowWrite paths
	readRoots  []string // resolved AllowRead, HomeToolchains and git configs: shown read-only
	// shown are the paths bound into the sandbox under their own names,
	// resolved and as given (a workspace reached through a symlink is
	// bound at both): writeRoots, readRoots and their given spellings.
	shown     []string
	hooksPath string   // the top repository's core.hooksPath target in the workspace, resolved
	readOnly  []string // Policy.ReadOnly, resolved
}

func (p Policy) rules() rules {
	r := rules{workspace: resolve(p.Workspace)}
	r.workspaces = []string{filepath.Clean(p.Workspace), r.workspace}
	r.home = resolve(p.Home)
	hide := append(append(append([]string(nil), DefaultHide...), p.Hide...), expandGlobs(systemHide)...)
	for _, h := range hide {
		h = strings.TrimPrefix(h, "~/")
		var real string
		if filepath.IsAbs(h) {
			h = filepath.Clean(h)
			real = resolve(h)
		} else {
			real = resolveUnder(r.home, h)
			h = filepath.Join(p.Home, h)
		}
		r.hidden = append(r.hidden, h)
		r.hiddenReal = append(r.hiddenReal, real)
	}
	for _, s := range agentSockets() {
		// The environment is not the user's policy: a socket path that
		// would cover the workspace (XDG_RUNTIME_DIR=/, say) is ignored
		// rather than making every command fail.
		if real := resolve(s); !within(r.workspace, real) && !within(filepath.Clean(p.Workspace), s) {
			r.hidden = append(r.hidden, s)
			r.hiddenReal = append(r.hiddenReal, real)
		}
	}
	r.writeRoots = []string{r.workspace}
	r.shown = []string{r.workspace, filepath.Clean(p.Workspace)}
	for _, w := range p.AllowWrite {
		r.writeRoots = append(r.writeRoots, resolve(w))
		r.shown = append(r.shown, resolve(w), filepath.Clean(w))
	}
	for _, a := range p.AllowRead {
		a = strings.TrimPrefix(a, "~/")
		if !filepath.IsAbs(a) {
			a = filepath.Join(p.Home, a)
		}
		r.readRoots = append(r.readRoots, resolve(a))
		r.shown = append(r.shown, resolve(a), filepath.Clean(a))
	}
	for _, h := range homeReads(r.home) {
		r.readRoots = append(r.readRoots, h)
		r.shown = append(r.shown, h)
	}
	slices.Sort(r.shown)
	r.shown = slices.Compact(r.shown)
	if hp := gitctl.HooksPath(r.workspace); hp != "" {
		r.hooksPath = resolve(hp)
	}
	for _, ro := range p.ReadOnly {
		if filepath.IsAbs(ro) && strings.IndexByte(ro, 0) < 0 {
			r.readOnly = append(r.readOnly, resolve(ro))
		}
	}
	return r
}

// expandGlobs expands the entries holding a glob; the others are kept.
func expandGlobs(paths []string) []string {
	var out []string
	for _, p := range paths {
		if !strings.ContainsAny(p, "*?[") {
			out = append(out, p)
			continue
		}
		matches, _ := filepath.Glob(p)
		out = append(out, matches...)
	}
	return out
}

func (r rules) readable(path string) bool {
	if path == "" || !filepath.IsAbs(path) {
		return false
	}
	clean := filepath.Clean(path)
	real := resolve(clean)
	for i, h := range r.hidden {
		if within(clean, h) || within(real, h) || within(real, r.hiddenReal[i]) {
			return false
		}
	}
	if r.workspaceSecret(clean) || r.workspaceSecret(real) {
		return false
	}
	if r.redactedGitConfig(real) {
		return false // the sandbox shows a redacted copy, not the file
	}
	// The name must lead there inside the sandbox too: a link in a
	// hidden directory to a shown file is not there to follow.
	return r.visible(real) && (clean == real || r.visible(clean))
}

// redactedGitConfig reports whether the resolved path is a git config
// file the sandbox replaces with a redacted copy (gitConfigMounts): a
// repository's config or the user's, holding a credential.
func (r rules) redactedGitConfig(real string) bool {
	base := filepath.Base(real)
	gitFile := (base == "config" || base == "config.worktree") && strings.Contains(real, "/.git/")
	for _, rel := range homeGitConfigs {
		gitFile = gitFile || real == filepath.Join(r.home, rel)
	}
	if !gitFile {
		return false
	}
	text, err := readSmall(real, gitctl.MaxConfigSize)
	return err == nil && gitConfigHasCredential(text)
}

func (r rules) writable(path string) bool {
	if !r.readable(path) {
		return false
	}
	real := resolve(filepath.Clean(path))
	if r.controlPath(real) || slices.ContainsFunc(r.readOnly, func(ro string) bool { return within(real, ro) }) {
		return false
	}
	for _, w := range r.writeRoots {
		if within(real, w) {
			return true
		}
	}
	return false
}

// controlPath reports whether the resolved path is a git control path
// (gitctl): any .git directory or file in a writable root, or the
// core.hooksPath target. Args mounts the ones that exist read-only.
func (r rules) controlPath(real string) bool {
	if r.hooksPath != "" && within(real, r.hooksPath) {
		return true
	}
	for _, w := range r.writeRoots {
		if within(real, w) && gitctl.Protected(w, "", real) {
			return true
		}
	}
	return false
}

// visible reports whether the host's file at the path is seen at all:
// inside what Args binds (the workspace, AllowWrite, AllowRead, the
// toolchains under home), or where the base mounts show the host.
func (r rules) visible(p string) bool {
	for _, s := range r.shown {
		if within(p, s) {
			return true
		}
	}
	return r.visibleUnbound(p)
}

// visibleUnbound reports whether a path lies where the base mounts show
// the host as it is: under a SystemRoot, outside the home directory and
// the private directories (/tmp, /run, /var/tmp, /proc). A symlink there
// leads to its bound target by itself.
func (r rules) visibleUnbound(p string) bool {
	if r.home != "/" && within(p, r.home) {
		return false
	}
	for _, private := range []string{privateProc, privateTmp, privateRun, privateVarTmp} {
		if within(p, private) {
			return false
		}
	}
	for _, root := range SystemRoots {
		if within(p, root) {
			return true
		}
	}
	return false
}

// workspaceSecret reports whether path lies in the workspace and a
// component of it below the workspace names a secret, outside the
// directories the scan skips.
func (r rules) workspaceSecret(path string) bool {
	for _, ws := range r.workspaces {
		if !within(path, ws) || path == ws {
			continue
		}
		parts := strings.Split(strings.TrimPrefix(path, ws+"/"), "/")
		parent := filepath.Base(ws)
		for i, part := range parts {
			if skipDir(part) && i < len(parts)-1 {
				break // the scan does not look inside; nothing there is masked
			}
			if secrets.Name(parent, part) { // as the scan judges: in its directory
				return true
			}
			parent = part
		}
	}
	return false
}
