package sandbox

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
)

// gitProtected returns the paths that stay read-only inside the
// writable roots because git runs what they say at the user's next git
// command, outside any sandbox: the workspace repository's hooks, config
// and config.worktree, its submodules' hooks and config
// (.git/modules/*/), and the directory core.hooksPath names (Husky and
// similar tools point it into the work tree). The hooks directory is
// listed even when missing: Args then creates it empty and mounts it
// read-only, so a hook cannot be created either.
func gitProtected(ws string, writeRoots []string) []protectedPath {
	gitDir := filepath.Join(ws, ".git")
	fi, err := os.Lstat(gitDir)
	if err != nil || !fi.IsDir() {
		return nil // no repository, or a linked worktree whose git dir lies elsewhere
	}
	out := []protectedPath{
		{filepath.Join(gitDir, "hooks"), true}, {filepath.Join(gitDir, "config"), false},
		{filepath.Join(gitDir, "config.worktree"), false},
	}
	modules, _ := filepath.Glob(filepath.Join(gitDir, "modules", "*"))
	for _, m := range modules {
		out = append(out, protectedPath{filepath.Join(m, "hooks"), true}, protectedPath{filepath.Join(m, "config"), false})
	}
	if text, err := os.ReadFile(filepath.Join(gitDir, "config")); err == nil {
		if hp := hooksPath(text); hp != "" && !strings.HasPrefix(hp, "~") {
			if !filepath.IsAbs(hp) {
				hp = filepath.Join(ws, hp) // relative to the top of the work tree
			}
			hp = resolve(hp)
			for _, w := range writeRoots {
				if within(hp, w) {
					out = append(out, protectedPath{hp, true})
					break
				}
			}
		}
	}
	for i := range out {
		out[i].path = resolve(out[i].path) // a linked hooks directory is protected where it lies
	}
	return out
}

// protectedPath is a path gitProtected keeps read-only; a missing
// directory of hooks is created empty so that it can be.
type protectedPath struct {
	path     string
	hooksDir bool
}

// hooksPath reads core.hooksPath from a git config file (the last one
// wins, as in git). Includes are not followed: an included file outside
// the workspace is not writable anyway.
func hooksPath(config []byte) string {
	var section, value string
	sc := bufio.NewScanner(bytes.NewReader(config))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			header, rest, _ := strings.Cut(line[1:], "]")
			section = strings.ToLower(strings.TrimSpace(header))
			line = strings.TrimSpace(rest) // "[core] hooksPath = x" is valid
		}
		key, val, ok := strings.Cut(line, "=")
		if section != "core" || !ok || !strings.EqualFold(strings.TrimSpace(key), "hookspath") {
			continue
		}
		val = strings.TrimSpace(val)
		if i := strings.IndexAny(val, "#;"); i >= 0 && !strings.HasPrefix(val, `"`) {
			val = strings.TrimSpace(val[:i])
		}
		value = strings.Trim(val, `"`)
	}
	return value
}
