package sandbox

import (
	"path/filepath"
	"strings"

	"github.com/magenta-nvim/magenta/pkg/secrets"
)

// rules is a Policy with its paths cleaned and symlink-resolved once:
// resolving costs a few system calls per path, and Args consults the
// rules for every mask.
type rules struct {
	workspace  string          // resolved
	workspaces []string        // as given and resolved: secrets are judged under both
	hidden     []string        // as given (home-joined)
	hiddenReal []string        // resolved, what the masks cover
	writeRoots []string        // resolved workspace and AllowWrite paths
	boundBack  []string        // what the private /tmp lets through: writeRoots and Home
	protected  []protectedPath // read-only inside the writable roots
}

func (p Policy) rules() rules {
	r := rules{workspace: resolve(p.Workspace)}
	r.workspaces = []string{filepath.Clean(p.Workspace), r.workspace}
	home := resolve(p.Home)
	for _, h := range append(append([]string(nil), DefaultHide...), p.Hide...) {
		h = strings.TrimPrefix(h, "~/")
		var real string
		if filepath.IsAbs(h) {
			h = filepath.Clean(h)
			real = resolve(h)
		} else {
			real = resolveUnder(home, h)
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
	for _, w := range p.AllowWrite {
		r.writeRoots = append(r.writeRoots, resolve(w))
	}
	r.boundBack = append(append([]string(nil), r.writeRoots...), home)
	r.protected = gitProtected(r.workspace, r.writeRoots)
	return r
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
	return r.visible(real)
}

func (r rules) writable(path string) bool {
	if !r.readable(path) {
		return false
	}
	real := resolve(filepath.Clean(path))
	for _, g := range r.protected {
		if within(real, g.path) {
			return false
		}
	}
	for _, w := range r.writeRoots {
		if within(real, w) {
			return true
		}
	}
	return false
}

// visible reports whether the host's file at the resolved path is seen
// at all: not under the private /proc, and under the private /tmp only
// inside what Args binds back.
func (r rules) visible(real string) bool {
	if within(real, privateProc) {
		return false
	}
	if !within(real, privateTmp) {
		return true
	}
	for _, b := range r.boundBack {
		if within(real, b) {
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
		for i, part := range parts {
			if skipDir(part) && i < len(parts)-1 {
				break // the scan does not look inside; nothing there is masked
			}
			if secrets.In([]string{part}) != "" {
				return true
			}
		}
	}
	return false
}
