package bashperm

import (
	"errors"
	"fmt"
	"github.com/magenta-nvim/magenta/pkg/secrets"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

type pathMode int

const (
	modeRead pathMode = iota
	modeWrite
	modeCd
	modeCwd
)

const maxLinks = 40

// joinRaw joins without cleaning: ".." must be applied after symlinks, as
// the kernel does.
func joinRaw(cwd, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return cwd + "/" + p
}

// resolve returns the physical path the kernel would reach for the absolute
// path p: components are walked in order, symlinks are followed and ".."
// applies to the resolved parent (so link-to-etc/../x is /x, not ./x).
// A missing component ends the walk; the rest is appended lexically.
func resolve(p string) (string, error) {
	rest := strings.Split(p, "/")
	cur := "/"
	links := 0
	for len(rest) > 0 {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		fi, err := os.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) {
			return filepath.Join(append([]string{next}, rest...)...), nil
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		if links++; links > maxLinks {
			return "", errors.New("too many levels of symbolic links")
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(target) {
			cur = "/"
		}
		rest = append(strings.Split(target, "/"), rest...)
	}
	return cur, nil
}

// within returns p relative to root when p is root or below it.
func within(root, p string) (string, bool) {
	if p == root {
		return ".", true
	}
	if root == "/" {
		return p[1:], true
	}
	if strings.HasPrefix(p, root+"/") {
		return p[len(root)+1:], true
	}
	return "", false
}

var specialDirs = []string{"/proc", "/sys", "/dev"}

// checkPath checks one path argument used from cwd; "" means allowed.
func (r *run) checkPath(arg, cwd string, mode pathMode) string {
	verb := [...]string{modeRead: "reads", modeWrite: "writes", modeCd: "changes directory to", modeCwd: "runs in"}[mode]
	shown := arg
	if mode == modeCwd {
		shown = cwd
	}
	abs := joinRaw(cwd, arg)
	resolved, err := resolve(abs)
	if err != nil {
		return fmt.Sprintf("%s %s, which cannot be resolved (%v)", verb, shown, err)
	}
	for _, d := range specialDirs {
		if resolved == d || strings.HasPrefix(resolved, d+"/") {
			return fmt.Sprintf("%s %s, a special system file", verb, shown)
		}
	}
	rel, ok := within(r.ws, resolved)
	if !ok {
		if lexical := filepath.Clean(abs); lexical != resolved {
			if _, in := within(r.ws, lexical); in {
				return fmt.Sprintf("%s %s, which resolves outside the workspace (%s)", verb, shown, resolved)
			}
		}
		return fmt.Sprintf("%s %s, outside the workspace", verb, shown)
	}
	for _, parts := range [][]string{strings.Split(rel, "/"), strings.Split(arg, "/")} {
		if name := secrets.In(parts); name != "" {
			return fmt.Sprintf("%s %s, which is or is inside a secret file (%s)", verb, shown, name)
		}
		if mode == modeWrite && slices.ContainsFunc(parts, func(s string) bool { return strings.EqualFold(s, ".git") }) {
			return fmt.Sprintf("writes %s, inside .git/", shown)
		}
	}
	if mode == modeRead {
		// A git config file holding a token is a secret by its content
		// (cat .git/config printed a remote URL's token).
		if reason := gitConfigFileReason(resolved); reason != "" {
			return fmt.Sprintf("%s %s, %s", verb, shown, reason)
		}
	}
	return ""
}

const maxGlobMatches = 1000

// glob expands an unquoted pattern the way bash does by default (no
// dotglob, nullglob or globstar; '*' and '?' only — bracket patterns ask
// earlier): names starting with '.' match only a component that starts
// with a literal '.', and then "." and ".." are candidates too (bash < 5.2
// matches them). Matches are spelled as bash spells them, relative when
// the pattern is.
func glob(cwd string, val []byte, quoted []bool) ([]string, string) {
	type cand struct{ shown, path string }
	cands := []cand{{"", cwd}}
	if len(val) > 0 && val[0] == '/' {
		cands = []cand{{"/", "/"}}
	}
	comps := splitPattern(val, quoted)
	for ci, comp := range comps {
		last := ci == len(comps)-1
		if comp.pat == "" {
			continue // leading, doubled or trailing slash: nothing to match
		}
		var next []cand
		for _, c := range cands {
			var names []string
			if comp.meta {
				entries, err := os.ReadDir(c.path)
				if err != nil {
					continue
				}
				if comp.pat[0] == '.' {
					names = append(names, ".", "..")
				}
				for _, e := range entries {
					names = append(names, e.Name())
				}
			} else {
				names = []string{comp.lit}
			}
			for _, n := range names {
				if comp.meta {
					if n[0] == '.' && comp.pat[0] != '.' {
						continue
					}
					if m, err := filepath.Match(comp.pat, n); err != nil {
						return nil, fmt.Sprintf("uses a glob pattern that cannot be checked (%v)", err)
					} else if !m {
						continue
					}
				}
				p := c.path + "/" + n // the kernel applies ".." physically
				statFn := os.Lstat
				if !last {
					statFn = os.Stat
				}
				fi, err := statFn(p)
				if err != nil || (!last && !fi.IsDir()) {
					continue
				}
				shown := c.shown + n
				if !last {
					shown += "/"
				}
				next = append(next, cand{shown, p})
				if len(next) > maxGlobMatches {
					return nil, "uses a glob that matches too many files to check"
				}
			}
		}
		cands = next
	}
	out := make([]string, 0, len(cands))
	for _, c := range cands {
		out = append(out, c.shown)
	}
	slices.Sort(out)
	return out, ""
}

type patComp struct {
	pat  string // for filepath.Match, quoted metacharacters escaped
	lit  string // the component without escapes
	meta bool   // has an unquoted * or ?
}

func splitPattern(val []byte, quoted []bool) []patComp {
	var comps []patComp
	var pat, lit strings.Builder
	meta := false
	flush := func() {
		comps = append(comps, patComp{pat.String(), lit.String(), meta})
		pat.Reset()
		lit.Reset()
		meta = false
	}
	for i, b := range val {
		switch {
		case b == '/':
			flush()
			continue
		case quoted[i] && strings.IndexByte(`*?[\`, b) >= 0:
			pat.WriteByte('\\')
		case !quoted[i] && (b == '*' || b == '?'):
			meta = true
		}
		pat.WriteByte(b)
		lit.WriteByte(b)
	}
	flush()
	return comps
}
