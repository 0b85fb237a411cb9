package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/magenta-nvim/magenta/pkg/gitctl"
)

// disarmedSuffix is appended to a .git a confined command created that
// would make git run a program: git no longer finds the repository, the
// user can look at it and rename it back.
const disarmedSuffix = ".disarmed-by-magenta"

// DisarmNewRepositories looks, after a confined command, for the .git
// directories and files it created (those a scan finds now that were
// not in before, Launch.GitPaths) and renames aside each one that would
// make git run a program at the user's next git command there: a hook
// that is not a sample, a config or config.worktree setting that names
// a program (gitctl.ExecKey, core.hooksPath), a config git cannot read,
// a commondir, or a .git file that leads anywhere but to such a
// harmless repository inside the workspace. Every existing .git is
// read-only inside the sandbox; a new one is the command's own, and
// `git init` leaves none of these. It returns one sentence per
// repository renamed (what it held, where it went), or nothing.
func (p Policy) DisarmNewRepositories(before []string) []string {
	r := p.rules()
	known := make(map[string]bool, len(before))
	for _, b := range before {
		known[b] = true
	}
	// Judge every new repository before renaming any: a .git file may
	// lead to another new one.
	type finding struct{ git, why string }
	var found []finding
	for _, g := range scanWorkspace(r.workspace, MaxScanEntries).gitPaths {
		if !known[g] {
			if why := r.repoRuns(g, 0); why != "" {
				found = append(found, finding{g, why})
			}
		}
	}
	var notes []string
	for _, f := range found {
		to := f.git + disarmedSuffix
		for i := 2; exists(to); i++ {
			to = fmt.Sprintf("%s%s-%d", f.git, disarmedSuffix, i)
		}
		rel, _ := filepath.Rel(r.workspace, filepath.Dir(f.git))
		if err := os.Rename(f.git, to); err != nil {
			notes = append(notes, fmt.Sprintf("the command created a git repository at %s whose %s would run a program at your next git command there, and it could not be disarmed (%v): remove it", rel, f.why, err))
			continue
		}
		notes = append(notes, fmt.Sprintf("the command created a git repository at %s whose %s would run a program at your next git command there; its .git was renamed to %s so that git does not use it", rel, f.why, filepath.Base(to)))
	}
	return notes
}

// repoRuns says what in the repository at the .git path g would run a
// program, or "" when nothing does. depth bounds .git files leading to
// .git files.
func (r rules) repoRuns(g string, depth int) string {
	fi, err := os.Lstat(g)
	if err != nil {
		return ""
	}
	if !fi.IsDir() {
		if depth > 2 || !fi.Mode().IsRegular() {
			return "link or gitdir file"
		}
		data, err := readSmall(g, 4096)
		target, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
		if err != nil || !ok {
			return "gitdir file"
		}
		target = strings.TrimSpace(target)
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(g), target)
		}
		target = resolve(target)
		if !within(target, r.workspace) {
			return "gitdir file (it leads outside the workspace, to " + target + ")"
		}
		return r.repoRuns(target, depth+1)
	}
	if exists(filepath.Join(g, "commondir")) {
		return "commondir (it redirects git to another repository)"
	}
	for _, name := range []string{"config", "config.worktree"} {
		data, err := readSmall(filepath.Join(g, name), gitctl.MaxConfigSize)
		if err != nil {
			if exists(filepath.Join(g, name)) {
				return name + " (unreadable)"
			}
			continue
		}
		entries, err := gitctl.ParseConfig(data)
		if err != nil {
			return name + " (git would read it differently)"
		}
		for _, e := range entries {
			if gitctl.ExecKey(e.Key) || e.Key == "core.hookspath" {
				return name + " setting " + e.Key
			}
		}
	}
	hooks, _ := os.ReadDir(filepath.Join(g, "hooks"))
	if i := slices.IndexFunc(hooks, func(e os.DirEntry) bool { return !strings.HasSuffix(e.Name(), ".sample") }); i >= 0 {
		return "hook " + hooks[i].Name()
	}
	return ""
}
