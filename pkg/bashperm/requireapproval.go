package bashperm

import (
	"fmt"
	"path/filepath"
	"strings"
)

// DefaultRequireApproval are the commands that ask even when the sandbox
// could confine them: what they do lands outside the sandbox (a push, a
// publish, cloud changes, a mail) or destroys work inside it that no undo
// brings back (recursive deletes other than of build output, git clean,
// git reset --hard). Config.RequireApproval adds to these.
var DefaultRequireApproval = []string{
	"git push", "git send-email",
	"git clean", "git reset --hard",
	"rm -r", "rm -R", "rm --recursive",
	"npm publish", "yarn publish", "pnpm publish", "cargo publish",
	"twine upload", "gem push", "poetry publish",
	"terraform apply", "terraform destroy", "pulumi up", "pulumi destroy",
}

// BuildDirs are conventional build and cache output directories. A
// recursive rm whose every operand is one of them (by base name, e.g.
// `rm -rf build web/dist`) does not match an "rm" pattern: deleting them
// loses nothing a build does not make again.
var BuildDirs = []string{
	"build", "dist", "target", "out", "node_modules", ".cache", "bin", "coverage",
	"obj", "_build", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache",
	".next", ".nuxt", ".turbo", ".tox",
}

// approvalPattern is one compiled RequireApproval entry: a program name,
// flags that must all be present and leading operands ("git push",
// "rm -rf", "make deploy").
type approvalPattern struct {
	text  string
	name  string
	short string   // letters of -x flags
	long  []string // --name flags
	ops   []string
}

func compilePattern(i int, p string) (approvalPattern, error) {
	words := strings.Fields(p)
	bad := func(format string, a ...any) error {
		return fmt.Errorf("requireApproval[%d] (%q): %s", i, p, fmt.Sprintf(format, a...))
	}
	if len(words) == 0 {
		return approvalPattern{}, bad("is empty")
	}
	if !commandRe.MatchString(words[0]) {
		return approvalPattern{}, bad("must start with a bare program name")
	}
	ap := approvalPattern{text: strings.Join(words, " "), name: words[0]}
	for _, w := range words[1:] {
		switch {
		case strings.HasPrefix(w, "--") && flagRe.MatchString(w):
			ap.long = append(ap.long, w)
		case strings.HasPrefix(w, "-") && flagRe.MatchString(w):
			ap.short += w[1:]
		case subWordRe.MatchString(w) && !strings.HasPrefix(w, "-"):
			ap.ops = append(ap.ops, w)
		default:
			return approvalPattern{}, bad("%q is neither a flag nor a plain word", w)
		}
	}
	return ap, nil
}

// matches reports whether argv (argv[0] is the program, by base name)
// matches the pattern. A word known only at run time could be anything,
// so it satisfies any flag, and any operand at a place it could take.
// Operands match at the start, or after words that each follow a flag
// (a flag's value: `git -C dir push`, `npm --prefix x publish`).
// moreArgs: the program gets further operands the check cannot see
// (xargs, find -exec), which spoils the rm build-directory exception.
func (ap *approvalPattern) matches(argv []cword, moreArgs bool) bool {
	if filepath.Base(argv[0].s) != ap.name {
		return false
	}
	var short strings.Builder
	var long []string
	var ops []cword
	var afterFlag []bool
	unknown, dashdash, prevFlag := false, false, false
	for _, a := range argv[1:] {
		switch {
		case !a.known:
			unknown = true
			ops, afterFlag = append(ops, a), append(afterFlag, prevFlag)
			prevFlag = false
		case dashdash || a.s == "-" || !strings.HasPrefix(a.s, "-"):
			ops, afterFlag = append(ops, a), append(afterFlag, prevFlag)
			prevFlag = false
		case a.s == "--":
			dashdash, prevFlag = true, false
		case strings.HasPrefix(a.s, "--"):
			name, _, hasEq := strings.Cut(a.s, "=")
			long = append(long, name)
			prevFlag = !hasEq
		default:
			short.WriteString(a.s[1:])
			prevFlag = true
		}
	}
	if !unknown {
		for _, c := range ap.short {
			if !strings.ContainsRune(short.String(), c) {
				return false
			}
		}
		for _, want := range ap.long {
			if !hasLong(long, want) {
				return false
			}
		}
	}
	if !ap.opsMatch(ops, afterFlag) {
		return false
	}
	if ap.name == "rm" && !moreArgs && len(ops) > 0 && allBuildDirs(ops) {
		return false
	}
	return true
}

// hasLong: want was given, whole or as an unambiguous-looking prefix
// (GNU getopt accepts --rec for --recursive).
func hasLong(seen []string, want string) bool {
	for _, s := range seen {
		if s == want || len(s) > 3 && strings.HasPrefix(want, s) {
			return true
		}
	}
	return false
}

func (ap *approvalPattern) opsMatch(ops []cword, afterFlag []bool) bool {
	if len(ap.ops) == 0 {
		return true
	}
	for start := 0; start+len(ap.ops) <= len(ops); start++ {
		if start > 0 && !afterFlag[start-1] && ops[start-1].known {
			break // an operand before start is not a flag's value
		}
		hit := true
		for j, w := range ap.ops {
			if o := ops[start+j]; o.known && o.s != w {
				hit = false
				break
			}
		}
		if hit {
			return true
		}
	}
	return false
}

func allBuildDirs(ops []cword) bool {
	for _, o := range ops {
		if !o.known || !isBuildDir(o.s) {
			return false
		}
	}
	return true
}

func isBuildDir(p string) bool {
	base := filepath.Base(filepath.Clean(p))
	for _, d := range BuildDirs {
		if base == d {
			return true
		}
	}
	return false
}
