package bashperm

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// DefaultRequireApproval are the commands that ask even when the sandbox
// could confine them. Config.RequireApproval adds to these.
//
// What they do lands outside the sandbox: a push, a publish, cloud
// changes, a mail (git push, npm publish, terraform apply…).
//
// Or they delete or overwrite files in the workspace that no undo brings
// back, and ask until checkpoints (rewind) can restore them
// (DefaultDestructive, whose reason says so):
//
//   - recursive deletes other than of build output (rm -r, see BuildDirs),
//     find -delete, shred, truncate, rsync --delete (and every
//     --delete-* variant);
//   - git commands that throw away uncommitted work: git clean, git
//     reset --hard, git checkout -f, git switch -f / --discard-changes,
//     git stash drop / clear.
//
// Some cases need more than a pattern (destructive.go); they ask with the
// same reason:
//
//   - git checkout when it restores paths over the work tree (`git
//     checkout -- .`, `git checkout <rev> -- <path>`, two or more operands,
//     or one operand that names an existing file or directory or is a
//     pathspec glob), not `git checkout main` or `git checkout -b new`;
//   - git restore, unless it restores only the index (--staged without
//     --worktree);
//   - rm whose operands come from find -exec/-execdir/-ok/-okdir or
//     xargs (the check cannot see which files: the build-directory
//     exception does not apply);
//   - interpreters running code the check cannot read: python -c, node
//     -e/--eval/-p/--print, perl -e/-E/-i, ruby -e/-i, php -r/-B/-R/-E,
//     and any of them reading its program from standard input
//     (`python3 - <<EOF`, `… | node`), since inline code can delete what
//     `rm -r` would have asked for (`python3 -c 'import shutil;
//     shutil.rmtree("src")'`).
//
// Like every requireApproval pattern, they limit what runs confined
// without asking; the unconfined check asks for all of them anyway unless
// a user rule allows the program.
var DefaultRequireApproval = append([]string{
	"git push", "git send-email",
	"npm publish", "yarn publish", "pnpm publish", "cargo publish",
	"twine upload", "gem push", "poetry publish",
	"terraform apply", "terraform destroy", "pulumi up", "pulumi destroy",
}, DefaultDestructive...)

// DefaultDestructive are the patterns of DefaultRequireApproval for
// commands that destroy work in the workspace (see there).
var DefaultDestructive = []string{
	"git clean", "git reset --hard",
	"git checkout -f", "git checkout --force",
	"git switch -f", "git switch --force", "git switch --discard-changes",
	"git stash drop", "git stash clear",
	"rm -r", "rm -R", "rm --recursive",
	"find -delete", "shred", "truncate", "rsync --delete*",
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
// "rm -rf", "make deploy"). A long flag ending in "*" stands for every
// flag it starts ("rsync --delete*": --delete-after too). For programs
// whose options are whole words (wholeWordOptions: find), a single-dash
// flag is one word ("find -delete"), not a bundle of letters.
type approvalPattern struct {
	text     string
	name     string
	short    string   // letters of -x flags
	long     []string // --name flags
	words    []string // whole single-dash words (wholeWordOptions programs)
	ops      []string
	destroys bool // a DefaultDestructive pattern: its reason says so
}

// wholeWordOptions are programs whose single-dash options are words, not
// bundles of letters: `find -delete` is not -d -e -l -t.
var wholeWordOptions = map[string]bool{"find": true}

// reason is why a command matching the pattern asks.
func (ap *approvalPattern) reason() string {
	if ap.destroys {
		return fmt.Sprintf("matches `%s`, %s", ap.text, destroysWhich)
	}
	return fmt.Sprintf("matches `%s`, which always asks (requireApproval)", ap.text)
}

func compilePattern(i int, p string) (approvalPattern, error) {
	words := strings.Fields(p)
	bad := func(format string, a ...any) error {
		return fmt.Errorf("requireApproval[%d] (%q): %s", i, p, fmt.Sprintf(format, a...))
	}
	if len(words) == 0 {
		return approvalPattern{}, bad("is empty")
	}
	if !commandRe().MatchString(words[0]) {
		return approvalPattern{}, bad("must start with a bare program name")
	}
	ap := approvalPattern{text: strings.Join(words, " "), name: words[0]}
	for _, w := range words[1:] {
		switch {
		case strings.HasPrefix(w, "--") && flagRe().MatchString(w):
			ap.long = append(ap.long, w)
		case strings.HasPrefix(w, "-") && flagRe().MatchString(w) && wholeWordOptions[ap.name]:
			ap.words = append(ap.words, w)
		case strings.HasPrefix(w, "-") && flagRe().MatchString(w):
			ap.short += w[1:]
		case subWordRe().MatchString(w) && !strings.HasPrefix(w, "-"):
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
	var long, words []string
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
		case wholeWordOptions[ap.name]:
			words = append(words, a.s)
			prevFlag = true
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
		for _, want := range ap.words {
			if !slices.Contains(words, want) {
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
// (GNU getopt accepts --rec for --recursive). A want ending in "*" is
// also given by any longer flag it starts (--delete* by --delete-after).
func hasLong(seen []string, want string) bool {
	want, anyTail := strings.CutSuffix(want, "*")
	for _, s := range seen {
		if s == want || len(s) > 3 && strings.HasPrefix(want, s) || anyTail && strings.HasPrefix(s, want) {
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
