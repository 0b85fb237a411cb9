package bashperm

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/magenta-nvim/magenta/pkg/secrets"
)

// maxWalkEntries bounds the walk of a searched tree; a larger tree asks.
// (A variable so that a test can lower it.)
var maxWalkEntries = 20000

// treeReader says which files below a searched directory a recursive
// reader opens.
type treeReader struct {
	cmd string
	// skipsHidden: the reader skips names starting with "." (rg does,
	// unless a whitelist — a glob, a type, an ignore-file "!" line —
	// brings them back).
	skipsHidden bool
	// include, when set, are the only base-name globs read (grep
	// --include, rg --glob); a glob this check cannot place matches all.
	include  []string
	foldCase bool
	// followsLinks: the reader opens what symlinks in the tree point to
	// (diff -r).
	followsLinks bool
	// honorsIgnores: the reader skips what .ignore and .rgignore files
	// (and .gitignore files inside a git repository) name, as rg does.
	honorsIgnores bool
	// noRequireGit: .gitignore files count outside git repositories too
	// (rg --no-require-git).
	noRequireGit bool
}

// secretsRead walks each of the trees (operands, from cwd) that t reads
// and returns a reason when a file it would open is a secret. .git
// directories are not entered (their names are git's own).
func (r *run) secretsRead(t treeReader, roots []string, cwd string) string {
	entries := 0
	for _, root := range roots {
		top, err := resolve(joinRaw(cwd, root))
		if err != nil {
			return fmt.Sprintf("cannot resolve %s to check it for secrets (%v)", root, err)
		}
		if fi, err := os.Stat(top); err != nil || !fi.IsDir() {
			continue // a file operand was checked as a path already
		}
		w := walker{r: r, t: t, root: root, entries: &entries}
		var st ignoreState
		if t.honorsIgnores {
			st = w.above(top)
		}
		if reason := w.dir(top, "", st); reason != "" {
			return reason
		}
		if w.whitelistsHidden && w.hiddenSkipped != "" {
			return fmt.Sprintf("`%s` may read %s: an ignore file rg reads for %s whitelists hidden files with a \"!\" line", t.cmd, w.hiddenSkipped, root)
		}
	}
	return ""
}

type walker struct {
	r       *run
	t       treeReader
	root    string
	entries *int
	// hiddenSkipped is a hidden secret, or a hidden directory, that the
	// walk skipped only because it is hidden; whitelistsHidden says an
	// ignore file may bring hidden names back.
	hiddenSkipped    string
	whitelistsHidden bool
}

// dir walks abs (shown as root/rel). st is what the ignore files above
// it say (nothing when the reader reads ignored files too).
func (w *walker) dir(abs, rel string, st ignoreState) string {
	ents, err := readDirUnsorted(abs)
	if err != nil {
		return fmt.Sprintf("cannot list %s to check it for secrets (%v)", filepath.Join(w.root, rel), err)
	}
	if w.t.honorsIgnores {
		st = w.ignoreFiles(abs, ents, st)
	}
	parent := filepath.Base(abs)
	for _, e := range ents {
		if *w.entries++; *w.entries > maxWalkEntries {
			return fmt.Sprintf("`%s` reads every file below %s: more than %d entries, too many to check for secrets", w.t.cmd, w.root, maxWalkEntries)
		}
		name := e.Name()
		if name == ".git" {
			// Not walked (its names are git's own, its objects many),
			// but a reader that does not skip hidden names opens its
			// config, which can hold a credential (gitcreds.go).
			if !w.t.skipsHidden && (w.reads("config", false) || w.reads("config.worktree", false)) {
				if reason := gitConfigFileReason(filepath.Join(abs, name)); reason != "" {
					return fmt.Sprintf("`%s` reads every file below %s, including %s, %s", w.t.cmd, w.root, filepath.Join(w.root, rel, name, "config"), reason)
				}
			}
			continue
		}
		if st.ignores(abs, name, e.IsDir()) {
			continue
		}
		if w.t.skipsHidden && name[0] == '.' {
			if w.hiddenSkipped == "" && (e.IsDir() || secrets.Name(parent, name)) {
				w.hiddenSkipped = filepath.Join(w.root, rel, name)
			}
			continue
		}
		if secrets.Name(parent, name) && w.reads(name, e.IsDir()) {
			return fmt.Sprintf("`%s` reads every file below %s, including the secret %s", w.t.cmd, w.root, filepath.Join(w.root, rel, name))
		}
		if gitConfigLike(name, e) && w.reads(name, e.IsDir()) {
			if reason := gitConfigFileReason(filepath.Join(abs, name)); reason != "" {
				return fmt.Sprintf("`%s` reads every file below %s, including %s, %s", w.t.cmd, w.root, filepath.Join(w.root, rel, name), reason)
			}
		}
		switch {
		case e.IsDir():
			if reason := w.dir(filepath.Join(abs, name), filepath.Join(rel, name), st); reason != "" {
				return reason
			}
		case e.Type()&os.ModeSymlink != 0 && w.t.followsLinks:
			if reason := w.r.checkPath(filepath.Join(abs, name), "/", modeRead); reason != "" {
				return fmt.Sprintf("`%s` follows the symlink %s: %s", w.t.cmd, filepath.Join(w.root, rel, name), reason)
			}
		}
	}
	return ""
}

// gitConfigLike: an entry that may be git configuration a recursive
// reader opens — .gitmodules, a gitconfig, a bare repository (name.git)
// — for gitConfigFileReason to look at. Symlinks are not followed by
// the readers that walk (diff -r's are checked as paths).
func gitConfigLike(name string, e os.DirEntry) bool {
	if e.IsDir() {
		return len(name) > 4 && strings.EqualFold(name[len(name)-4:], ".git")
	}
	return e.Type().IsRegular() && (strings.EqualFold(name, ".gitmodules") || strings.EqualFold(name, ".gitconfig") || strings.EqualFold(name, "gitconfig"))
}

// reads reports whether the reader opens a file (or, for a directory,
// something below it) named name, given its include globs.
func (w *walker) reads(name string, isDir bool) bool {
	if w.t.include == nil || isDir {
		return true
	}
	if w.t.foldCase {
		name = strings.ToLower(name)
	}
	for _, g := range w.t.include {
		if w.t.foldCase {
			g = strings.ToLower(g)
		}
		if strings.ContainsAny(g, "/{\\") {
			return true // a path or brace glob: assume it matches
		}
		if ok, err := filepath.Match(g, name); ok || err != nil {
			return true
		}
	}
	return false
}

// ignoreFileWhitelistsHidden reports whether a gitignore-style file has a
// "!" line whose pattern could match a hidden secret: a pattern with a
// wildcard, or a literal path naming a secret or a hidden directory
// (!.gitkeep does not count). ripgrep searches whitelisted hidden files.
// A file it cannot read counts as whitelisting.
func ignoreFileWhitelistsHidden(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return true
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		pat, ok := strings.CutPrefix(line, "!")
		if !ok {
			continue
		}
		pat = strings.Trim(pat, "/")
		if strings.ContainsAny(pat, "*?[\\") || secrets.InPath(pat) != "" {
			return true
		}
		if dir, _, nested := strings.Cut(pat, "/"); nested && strings.HasPrefix(dir, ".") {
			return true
		}
	}
	return sc.Err() != nil
}

// ignoreRule is one line of an ignore file that the walk can apply: a
// base-name pattern, maybe only for directories, maybe only directly in
// the ignore file's directory.
type ignoreRule struct {
	dir, pattern      string
	dirOnly, anchored bool
}

// ignoreState is what the ignore files met from / down to a directory say
// about the entries in it, as far as the walk applies them. It never
// skips more than rg: rg skips a path when some applicable rule ignores
// it and no whitelist ("!" line) wins, so the walk applies a subset of
// the ignoring rules and, below any whitelist, none.
type ignoreState struct {
	dot []ignoreRule // of .ignore and .rgignore files: they apply anywhere
	// git are the rules of the .gitignore files from the nearest
	// directory holding a .git down to here: rg does not apply a
	// .gitignore above a nested repository to the files inside it.
	git []ignoreRule
	// anyGit: rg counts .gitignore files here — some directory from /
	// down to here holds a .git that rg sees (or --no-require-git).
	anyGit bool
	// off: an ignore file above has a "!" line, which can re-include
	// what any other file (of another kind, at any depth) ignores, so
	// nothing below is skipped.
	off bool
}

func (st *ignoreState) ignores(dir, name string, isDir bool) bool {
	return !st.off && (matchIgnore(st.dot, dir, name, isDir) || st.anyGit && matchIgnore(st.git, dir, name, isDir))
}

// above starts the state of a walk from top (resolved): whether rg sees a
// repository in top's ancestors, and the ignore files there, which the
// walk does not apply but whose "!" lines can whitelist what the walk
// would skip (rg reads them unless --no-ignore-parent).
func (w *walker) above(top string) ignoreState {
	st := ignoreState{anyGit: w.t.noRequireGit}
	for d := top; d != "/"; {
		d = filepath.Dir(d)
		if dotGitSeenByRg(filepath.Join(d, ".git")) {
			st.anyGit = true
		}
		for _, name := range []string{".ignore", ".rgignore", ".gitignore"} {
			w.foreign(filepath.Join(d, name), &st)
		}
		for _, f := range excludeFiles(filepath.Join(d, ".git")) {
			w.foreign(f, &st)
		}
	}
	return st
}

// dotGitSeenByRg is rg's test for a repository (the ignore crate's
// `dir.join(".git").exists()`): .git exists after following symlinks,
// whatever it is — a directory, a file, a link to either. A dangling
// link is no repository to rg, whatever git makes of it.
func dotGitSeenByRg(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// excludeFiles are the info/exclude files of the repository at dotgit:
// rg 13 reads .git/info/exclude; newer versions follow a .git file to
// the worktree's git directory and its common directory.
func excludeFiles(dotgit string) []string {
	files := []string{filepath.Join(dotgit, "info", "exclude")}
	gitDir, err := readGitFile(dotgit)
	if err != nil {
		return files
	}
	files = append(files, filepath.Join(gitDir, "info", "exclude"))
	if data, err := readSmall(filepath.Join(gitDir, "commondir"), maxGitFileSize); err == nil {
		common := strings.TrimSpace(string(data))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitDir, common)
		}
		files = append(files, filepath.Join(common, "info", "exclude"))
	}
	return files
}

// foreign notes an ignore file rg reads that the walk does not apply
// (above the root, .git/info/exclude): a "!" line there can re-include
// what the walk would skip, and can whitelist hidden names.
func (w *walker) foreign(path string, st *ignoreState) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return
	}
	if w.t.skipsHidden && !w.whitelistsHidden {
		w.whitelistsHidden = ignoreFileWhitelistsHidden(path)
	}
	if _, negated := parseIgnoreFile(path, ""); negated {
		st.off = true
	}
}

// ignoreFiles returns the state for the entries of dir (ents) from the
// state above it. A .git entry makes dir a repository root the way rg
// decides it (dotGitSeenByRg): .gitignore files count from here down,
// those above no longer do. A .git that is there but that rg does not
// see (a dangling link, an error) counts as a root for the latter only,
// so the walk never applies a .gitignore rg would not.
func (w *walker) ignoreFiles(dir string, ents []os.DirEntry, st ignoreState) ignoreState {
	for _, e := range ents {
		if e.Name() != ".git" {
			continue
		}
		st.git = nil
		if e.Type()&os.ModeSymlink == 0 || dotGitSeenByRg(filepath.Join(dir, ".git")) {
			st.anyGit = true
		}
		for _, f := range excludeFiles(filepath.Join(dir, ".git")) {
			w.foreign(f, &st)
		}
	}
	for _, e := range ents {
		name := e.Name()
		if name != ".ignore" && name != ".rgignore" && name != ".gitignore" {
			continue
		}
		path := filepath.Join(dir, name)
		if w.t.skipsHidden && !w.whitelistsHidden {
			w.whitelistsHidden = ignoreFileWhitelistsHidden(path)
		}
		if name == ".gitignore" && !st.anyGit {
			continue // rg does not read it here, nor below (see ignoreState.git)
		}
		more, negated := parseIgnoreFile(path, dir)
		if negated {
			st.off = true
		}
		if name == ".gitignore" {
			st.git = append(st.git[:len(st.git):len(st.git)], more...)
		} else {
			st.dot = append(st.dot[:len(st.dot):len(st.dot)], more...)
		}
	}
	return st
}

// parseIgnoreFile reads the rules the walk can apply from a gitignore-
// style file: base-name patterns, with a leading "/" (anchored) or a
// trailing "/" (directories only). Patterns with an inner slash, "**" or
// an escape are left out (the walk then reads more than rg, never less).
// negated reports a "!" line, or a file that cannot be read.
func parseIgnoreFile(path, dir string) (rules []ignoreRule, negated bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, true
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), " \t\r")
		switch {
		case line == "" || line[0] == '#':
			continue
		case line[0] == '!':
			return nil, true
		}
		r := ignoreRule{dir: dir}
		if strings.HasSuffix(line, "/") {
			r.dirOnly, line = true, strings.TrimSuffix(line, "/")
		}
		if strings.HasPrefix(line, "/") {
			r.anchored, line = true, strings.TrimPrefix(line, "/")
		}
		if line == "" || strings.ContainsAny(line, "/\\") || strings.Contains(line, "**") {
			continue
		}
		if _, err := filepath.Match(line, ""); err != nil {
			continue
		}
		r.pattern = line
		rules = append(rules, r)
	}
	return rules, sc.Err() != nil
}

func matchIgnore(rules []ignoreRule, dir, name string, isDir bool) bool {
	for _, r := range rules {
		if (r.anchored && r.dir != dir) || (r.dirOnly && !isDir) {
			continue
		}
		if ok, _ := filepath.Match(r.pattern, name); ok {
			return true
		}
	}
	return false
}

// Walkers of the default rules.

func walkGrep(r *run, s *scanned, cwd string) string {
	if !s.seen["-r"] && !s.seen["--recursive"] && !s.seen["-d"] && !s.seen["--directories"] {
		return ""
	}
	t := treeReader{cmd: "grep -r"}
	for _, v := range s.values {
		if v.flag == "--include" {
			t.include = append(t.include, v.value)
		}
	}
	return r.secretsRead(t, searchRoots(s), cwd)
}

func walkRg(r *run, s *scanned, cwd string) string {
	t := treeReader{cmd: "rg", skipsHidden: true}
	for _, v := range s.values {
		switch v.flag {
		case "-g", "--glob", "--iglob":
			if !strings.HasPrefix(v.value, "!") {
				t.include = append(t.include, v.value)
			}
			t.foldCase = t.foldCase || v.flag == "--iglob"
		case "-t", "--type", "--type-add", "--ignore-file":
			// A type or an extra ignore file can whitelist hidden files.
			t.skipsHidden = false
		}
	}
	if t.include != nil {
		t.skipsHidden = false // the globs decide, hidden or ignored or not
	}
	t.honorsIgnores = t.include == nil && !s.seen["--no-ignore"] && !s.seen["--no-ignore-dot"] &&
		!s.seen["--no-ignore-vcs"] && !s.seen["--no-ignore-files"]
	// With both spellings the later one wins; assuming --require-git
	// applies fewer .gitignore files, so the walk reads more.
	t.noRequireGit = s.seen["--no-require-git"] && !s.seen["--require-git"]
	if s.seen["--glob-case-insensitive"] {
		t.foldCase = true
	}
	return r.secretsRead(t, searchRoots(s), cwd)
}

// walkDiff: diff compares same-named files of directory operands (one
// level deep, all levels with -r), so every directory operand is walked.
func walkDiff(r *run, s *scanned, cwd string) string {
	roots := append([]string(nil), s.pathValues...) // --from-file/--to-file DIR recurse too
	for _, a := range s.rest {
		roots = append(roots, a.s)
	}
	return r.secretsRead(treeReader{cmd: "diff", followsLinks: true}, roots, cwd)
}

// searchRoots are the path operands of grep or rg (after the pattern,
// unless -e or -f gave it), "." when there are none.
func searchRoots(s *scanned) []string {
	rest := s.rest
	if !(s.seen["-e"] || s.seen["-f"] || s.seen["--regexp"] || s.seen["--file"]) && len(rest) > 0 {
		rest = rest[1:]
	}
	if len(rest) == 0 {
		return []string{"."}
	}
	roots := make([]string, len(rest))
	for i, a := range rest {
		roots[i] = a.s
	}
	return roots
}

// readDirUnsorted is os.ReadDir without the sort, which the walk does not
// need.
func readDirUnsorted(dir string) ([]os.DirEntry, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}
