package bashperm

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"

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
		w := walker{r: r, t: t, root: root, entries: &entries, inGitRepo: t.honorsIgnores && inGitRepo(top)}
		if reason := w.dir(top, "", nil); reason != "" {
			return reason
		}
		if w.whitelistsHidden && w.hiddenSkipped != "" {
			return fmt.Sprintf("`%s` may read %s: an ignore file below %s whitelists hidden files with a \"!\" line", t.cmd, w.hiddenSkipped, root)
		}
	}
	return ""
}

type walker struct {
	r         *run
	t         treeReader
	root      string
	entries   *int
	inGitRepo bool // .gitignore files count (rg honours them only in a repository)
	// hiddenSkipped is a hidden secret, or a hidden directory, that the
	// walk skipped only because it is hidden; whitelistsHidden says an
	// ignore file may bring hidden names back.
	hiddenSkipped    string
	whitelistsHidden bool
}

// dir walks abs (shown as root/rel). ignores are the rules of the ignore
// files above it, nil when the reader reads ignored files too.
func (w *walker) dir(abs, rel string, ignores []ignoreRule) string {
	ents, err := readDirUnsorted(abs)
	if err != nil {
		return fmt.Sprintf("cannot list %s to check it for secrets (%v)", filepath.Join(w.root, rel), err)
	}
	if w.t.honorsIgnores {
		ignores = w.ignoreFiles(abs, ents, ignores)
	}
	parent := filepath.Base(abs)
	for _, e := range ents {
		if *w.entries++; *w.entries > maxWalkEntries {
			return fmt.Sprintf("`%s` reads every file below %s: more than %d entries, too many to check for secrets", w.t.cmd, w.root, maxWalkEntries)
		}
		name := e.Name()
		if name == ".git" || ignored(ignores, abs, name, e.IsDir()) {
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
		switch {
		case e.IsDir():
			if reason := w.dir(filepath.Join(abs, name), filepath.Join(rel, name), ignores); reason != "" {
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

// ignoreFiles adds the rules of the ignore files in dir (ents) to
// inherited. An ignore file with a "!" line re-includes what others
// exclude: then nothing below dir is skipped (nil), and the walker notes
// whether the line could bring back hidden names.
func (w *walker) ignoreFiles(dir string, ents []os.DirEntry, inherited []ignoreRule) []ignoreRule {
	rules := inherited
	for _, e := range ents {
		name := e.Name()
		if name != ".ignore" && name != ".rgignore" && name != ".gitignore" {
			continue
		}
		path := filepath.Join(dir, name)
		if w.t.skipsHidden && !w.whitelistsHidden {
			w.whitelistsHidden = ignoreFileWhitelistsHidden(path)
		}
		if name == ".gitignore" && !w.inGitRepo {
			continue
		}
		more, negated := parseIgnoreFile(path, dir)
		if negated {
			return nil
		}
		rules = append(rules[:len(rules):len(rules)], more...)
	}
	return rules
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

func ignored(rules []ignoreRule, dir, name string, isDir bool) bool {
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

// inGitRepo: rg honours .gitignore files only below a directory holding
// .git.
func inGitRepo(dir string) bool {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return true
		}
		if d == "/" {
			return false
		}
	}
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
