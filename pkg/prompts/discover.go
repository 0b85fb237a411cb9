package prompts

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Bounds of one directory walk.
const (
	// MaxEntries caps the files one directory contributes; the rest are
	// skipped with a warning.
	MaxEntries = 200
	// maxDepth bounds the subdirectories commands and agents are looked
	// for in (commands/a/b/c.md is depth 2).
	maxDepth = 3
)

// Kinds of file, by the directory they live in.
const (
	kindSkill   = "skills"
	kindCommand = "commands"
	kindAgent   = "agents"
)

// Dirs are the places files are looked for.
type Dirs struct {
	// Workspace holds .magenta/ and .claude/; "" for none.
	Workspace string
	// Home holds ~/.claude/; "" when unknown.
	Home string
	// ConfigHome holds magenta/ ($XDG_CONFIG_HOME, else ~/.config).
	ConfigHome string
}

// DirsFor returns the directories for workspace from the environment:
// the home directory and $XDG_CONFIG_HOME (~/.config when unset or not
// absolute, as Neovim reads it).
func DirsFor(workspace string) Dirs {
	home, _ := os.UserHomeDir()
	cfg := os.Getenv("XDG_CONFIG_HOME")
	if !filepath.IsAbs(cfg) {
		cfg = ""
		if home != "" {
			cfg = filepath.Join(home, ".config")
		}
	}
	return Dirs{Workspace: workspace, Home: home, ConfigHome: cfg}
}

// root is one directory of one kind, in order of precedence.
type root struct {
	dir   string
	scope Scope
}

// roots lists kind's directories, the first winning a duplicate name:
// the user's (magenta's own, then Claude Code's), then the workspace's
// (the same order). A directory listed twice (the workspace is the home
// directory) counts once, as the user's.
func (d Dirs) roots(kind string) []root {
	var out []root
	add := func(dir string, scope Scope) {
		dir = filepath.Clean(dir)
		for _, r := range out {
			if r.dir == dir {
				return
			}
		}
		out = append(out, root{dir, scope})
	}
	if d.ConfigHome != "" {
		add(filepath.Join(d.ConfigHome, "magenta", kind), User)
	}
	if d.Home != "" {
		add(filepath.Join(d.Home, ".claude", kind), User)
	}
	if d.Workspace != "" {
		add(filepath.Join(d.Workspace, ".magenta", kind), Workspace)
		add(filepath.Join(d.Workspace, ".claude", kind), Workspace)
	}
	return out
}

// Roots lists every directory looked in, by kind ("skills", "commands",
// "agents"), first winning.
func (d Dirs) Roots(kind string) []string {
	var out []string
	for _, r := range d.roots(kind) {
		out = append(out, r.dir)
	}
	return out
}

// shown is path as the user and the model read it.
func (d Dirs) shown(path string, scope Scope) string {
	if scope == Workspace && d.Workspace != "" {
		if rel, err := filepath.Rel(d.Workspace, path); err == nil && !strings.HasPrefix(rel, "..") {
			return rel
		}
	}
	if d.Home != "" {
		if rel, err := filepath.Rel(d.Home, path); err == nil && !strings.HasPrefix(rel, "..") {
			return "~/" + rel
		}
	}
	return path
}

// candidate is a file that may define something.
type candidate struct {
	path string
	// name: the skill's directory, the command's or agent's file stem.
	name      string
	namespace string // a command's subdirectories, joined by ":"
	root      root
	viaLink   bool // a directory on the way is a symbolic link
}

// cached is what a file gave, kept while its size and time stay.
type cached struct {
	mod      time.Time
	size     int64
	skill    Skill
	command  Command
	agent    Agent
	warnings []string
	err      error
}

// scan is one pass over every directory. It reads a file only when the
// cache has nothing for its size and time; it runs on the library's
// worker, one at a time.
type scan struct {
	lib      *Library
	set      *Set
	next     map[string]cached
	wsReal   string // the workspace with links resolved
	warnings []string
}

func (l *Library) discover() *Set {
	s := &scan{lib: l, set: &Set{}, next: map[string]cached{}}
	if l.dirs.Workspace != "" {
		if real, err := filepath.EvalSymlinks(l.dirs.Workspace); err == nil {
			s.wsReal = real
		}
	}
	for _, kind := range []string{kindSkill, kindCommand, kindAgent} {
		s.kind(kind)
	}
	l.cache = s.next
	s.set.Warnings = s.warnings
	return s.set
}

// kind collects one kind from its roots, first root first.
func (s *scan) kind(kind string) {
	type seenAt struct {
		root  int
		shown string
	}
	seen := map[string]seenAt{}
	for i, r := range s.lib.dirs.roots(kind) {
		if !s.rootUsable(kind, r) {
			continue
		}
		for _, c := range s.list(kind, r) {
			got, ok := s.read(kind, c)
			if !ok {
				continue
			}
			name := got.name(kind)
			shown := s.lib.dirs.shown(c.path, r.scope)
			if prev, dup := seen[name]; dup {
				if prev.root == i {
					s.warn(fmt.Sprintf("%s and %s both define the %s %q; the second is skipped", prev.shown, shown, singular(kind), name))
				}
				continue // a directory before this one defines it
			}
			seen[name] = seenAt{i, shown}
			s.add(kind, got, Origin{Path: c.path, Scope: r.scope, Shown: shown}, c)
		}
	}
	sort.Slice(s.set.Skills, func(i, j int) bool { return s.set.Skills[i].Name < s.set.Skills[j].Name })
	sort.Slice(s.set.Commands, func(i, j int) bool { return s.set.Commands[i].Name < s.set.Commands[j].Name })
	sort.Slice(s.set.Agents, func(i, j int) bool { return s.set.Agents[i].Name < s.set.Agents[j].Name })
}

func (c cached) name(kind string) string {
	switch kind {
	case kindSkill:
		return c.skill.Name
	case kindCommand:
		return c.command.Name
	}
	return c.agent.Name
}

func (s *scan) add(kind string, c cached, o Origin, cand candidate) {
	switch kind {
	case kindSkill:
		sk := c.skill
		sk.Origin, sk.Dir = o, filepath.Dir(cand.path)
		s.set.Skills = append(s.set.Skills, sk)
	case kindCommand:
		cmd := c.command
		cmd.Origin, cmd.Namespace = o, cand.namespace
		s.set.Commands = append(s.set.Commands, cmd)
	default:
		a := c.agent
		a.Origin = o
		s.set.Agents = append(s.set.Agents, a)
	}
}

func singular(kind string) string { return strings.TrimSuffix(kind, "s") }

func (s *scan) warn(msg string) { s.warnings = append(s.warnings, msg) }

// rootUsable: a workspace directory that leads out of the workspace
// through a link (.claude -> ~/somewhere) is not read: what a repository
// plants must not pick files from elsewhere.
func (s *scan) rootUsable(kind string, r root) bool {
	if r.scope != Workspace {
		return true
	}
	real, err := filepath.EvalSymlinks(r.dir)
	if err != nil {
		return false // absent: nothing to read
	}
	if s.wsReal == "" || !within(s.wsReal, real) {
		s.warn(fmt.Sprintf("%s leads out of the workspace through a symbolic link; its %s are not read", s.lib.dirs.shown(r.dir, r.scope), kind))
		return false
	}
	return true
}

// list finds kind's candidate files under r, sorted by path.
func (s *scan) list(kind string, r root) []candidate {
	var out []candidate
	full := false
	add := func(c candidate) bool {
		if len(out) >= MaxEntries {
			full = true
			return false
		}
		out = append(out, c)
		return true
	}
	if kind == kindSkill {
		entries := s.readDir(r.dir)
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") || !(e.IsDir() || e.Type()&fs.ModeSymlink != 0) {
				continue
			}
			if !add(candidate{path: filepath.Join(r.dir, e.Name(), "SKILL.md"), name: e.Name(), root: r, viaLink: e.Type()&fs.ModeSymlink != 0}) {
				break
			}
		}
	} else {
		s.walk(r.dir, nil, false, r, add)
	}
	if full {
		s.warn(fmt.Sprintf("%s holds more than %d %s; the rest are skipped", s.lib.dirs.shown(r.dir, r.scope), MaxEntries, kind))
	}
	return out
}

// walk adds the .md files of dir and its subdirectories (to maxDepth).
func (s *scan) walk(dir string, sub []string, viaLink bool, r root, add func(candidate) bool) bool {
	for _, e := range s.readDir(dir) {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		path := filepath.Join(dir, name)
		isLink := e.Type()&fs.ModeSymlink != 0
		isDir := e.IsDir()
		if isLink {
			if fi, err := os.Stat(path); err == nil {
				isDir = fi.IsDir()
			}
		}
		switch {
		case isDir:
			if len(sub) < maxDepth && !s.walk(path, append(sub, name), viaLink || isLink, r, add) {
				return false
			}
		case strings.HasSuffix(name, ".md"):
			c := candidate{path: path, name: strings.TrimSuffix(name, ".md"), namespace: strings.Join(sub, ":"), root: r, viaLink: viaLink || isLink}
			if !add(c) {
				return false
			}
		}
	}
	return true
}

// readDir lists dir sorted by name; a missing directory is empty.
func (s *scan) readDir(dir string) []os.DirEntry {
	s.lib.dirsListed.Add(1)
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrPermission) && !isNotDir(err) {
		s.warn(fmt.Sprintf("%s could not be listed: %v", dir, err))
	}
	return entries
}

func isNotDir(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "not a directory")
}

// read parses candidate c of kind, from the cache when its file did not
// change; false when it defines nothing (a warning says why).
func (s *scan) read(kind string, c candidate) (cached, bool) {
	shown := s.lib.dirs.shown(c.path, c.root.scope)
	fail := func(why string) (cached, bool) {
		s.warn(fmt.Sprintf("%s file %s: %s; it is skipped", singular(kind), shown, why))
		return cached{}, false
	}
	fi, err := os.Stat(c.path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && kind == kindSkill:
		return cached{}, false // a directory without SKILL.md is no skill
	case err != nil:
		return fail(err.Error())
	case !fi.Mode().IsRegular():
		return fail("it is not a regular file")
	case fi.Size() > MaxFileBytes:
		return fail(fmt.Sprintf("it is %d KB, over the %d KB limit", (fi.Size()+1023)>>10, MaxFileBytes>>10))
	}
	if c.root.scope == Workspace && (c.viaLink || isLink(c.path)) {
		real, err := filepath.EvalSymlinks(c.path)
		if err != nil || s.wsReal == "" || !within(s.wsReal, real) {
			return fail("it is a symbolic link leading out of the workspace")
		}
	}
	if prev, ok := s.lib.cache[c.path]; ok && prev.mod.Equal(fi.ModTime()) && prev.size == fi.Size() {
		s.next[c.path] = prev
		return s.report(kind, shown, prev)
	}
	got := cached{mod: fi.ModTime(), size: fi.Size()}
	data, err := readCapped(c.path)
	s.lib.filesRead.Add(1)
	switch {
	case err != nil:
		got.err = err
	case kind == kindSkill:
		got.skill, got.warnings, got.err = parseSkill(data, c.name)
	case kind == kindCommand:
		got.command, got.warnings, got.err = parseCommand(data, c.name)
	default:
		got.agent, got.warnings, got.err = parseAgent(data)
	}
	s.next[c.path] = got
	return s.report(kind, shown, got)
}

// report turns what a file gave into warnings and its use.
func (s *scan) report(kind, shown string, c cached) (cached, bool) {
	if c.err != nil {
		s.warn(fmt.Sprintf("%s file %s: %v; it is skipped", singular(kind), shown, c.err))
		return cached{}, false
	}
	for _, w := range c.warnings {
		s.warn(fmt.Sprintf("%s file %s: %s", singular(kind), shown, w))
	}
	return c, true
}

func readCapped(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("it grew over the %d KB limit", MaxFileBytes>>10)
	}
	return data, nil
}

func isLink(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.Mode()&fs.ModeSymlink != 0
}

// within reports whether path is root or below it.
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// UserRoots lists kind's directories in the user's home and config home
// (the workspace's are below the workspace anyway).
func (d Dirs) UserRoots(kind string) []string {
	var out []string
	for _, r := range d.roots(kind) {
		if r.scope == User {
			out = append(out, r.dir)
		}
	}
	return out
}
