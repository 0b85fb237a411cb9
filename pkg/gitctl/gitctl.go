package gitctl

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
)

// DotGit reports whether a path component is `.git` (any case: git on a
// case-insensitive file system finds .GIT too).
func DotGit(name string) bool { return strings.EqualFold(name, ".git") }

// InParts reports whether a path, given as its components below the
// workspace, is a .git directory or file or lies inside one.
func InParts(parts []string) bool {
	for _, p := range parts {
		if DotGit(p) {
			return true
		}
	}
	return false
}

// Protected reports whether the absolute, cleaned path lies in a git
// control path of the workspace (also absolute and cleaned): inside a
// .git directory or file anywhere below the workspace, or inside the
// hooks directory the top repository's core.hooksPath names (hooksPath
// as HooksPath returned it; "" for none). Paths outside the workspace
// are the caller's business (they are not writable there anyway).
func Protected(workspace, hooksPath, path string) bool {
	if hooksPath != "" && within(path, hooksPath) {
		return true
	}
	if !within(path, workspace) || path == workspace {
		return false
	}
	return InParts(strings.Split(strings.TrimPrefix(path, workspace+"/"), "/"))
}

// HooksPath returns the absolute directory the core.hooksPath of the
// repository at <workspace>/.git names, when that lies inside the
// workspace ("" otherwise, or when unset, or when it starts with ~: a
// hooks directory under home is outside the workspace). A relative
// value is taken from the top of the work tree, as git does. Includes
// are not followed: an included file outside the workspace cannot be
// written from it.
func HooksPath(workspace string) string {
	text, err := os.ReadFile(filepath.Join(workspace, ".git", "config"))
	if err != nil {
		return ""
	}
	return HooksPathIn(workspace, text)
}

// HooksPathIn is HooksPath with the text of workspace's .git/config
// read by the caller (from another machine, for an ssh thread).
func HooksPathIn(workspace string, config []byte) string {
	hp := hooksPathIn(config)
	if hp == "" || strings.HasPrefix(hp, "~") {
		return ""
	}
	if !filepath.IsAbs(hp) {
		hp = filepath.Join(workspace, hp)
	}
	hp = filepath.Clean(hp)
	if !within(hp, workspace) || hp == workspace {
		return ""
	}
	return hp
}

// hooksPathIn reads core.hooksPath from a git config file's text (the
// last one wins, as in git).
func hooksPathIn(config []byte) string {
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
		if quoted, ok := strings.CutPrefix(val, `"`); ok {
			val, _, _ = strings.Cut(quoted, `"`)
		} else if i := strings.IndexAny(val, "#;"); i >= 0 {
			val = strings.TrimSpace(val[:i])
		}
		value = val
	}
	return value
}

// within reports whether path is root or below it (both cleaned).
func within(path, root string) bool {
	if root == "/" {
		return true
	}
	return path == root || strings.HasPrefix(path, root+"/")
}
