package bashperm

import (
	"fmt"
	"strings"
)

// A secret deleted from the work tree lives on in git's object store, and
// many git commands print objects or write them back into the work tree
// (issue 23, finding 5): `git log --raw` names a deleted key's blob and
// `git show -s <blob>` prints it, `git cat-file -p`, `git archive`, `git
// grep <pattern> <rev>`, `git format-patch --stdout`, `git checkout <old>
// && cat <file>`… So in a repository that tracks or once tracked a
// secret, a git command is judged by what it can print or materialise,
// and one this file does not know asks.

type exposeLevel int

const (
	// exposeNothing: names, object ids, statistics, commit messages, or
	// the contents of files named by path (blame, REV:PATH), whose names
	// are checked elsewhere.
	exposeNothing exposeLevel = iota
	// exposeChecked: file contents, limited as the exposure's fields say
	// (the revisions must be commits, the pathspecs must cover no
	// secret…).
	exposeChecked
	// exposeAny: any object, or another revision's files written into the
	// work tree.
	exposeAny
)

// exposure is what a git command can show of the repository's history.
type exposure struct {
	level exposeLevel
	why   string // exposeAny: what the command does, for the reason
	// commits must each name a commit (or a tree): the revisions of git
	// show, which prints any other object whatever its flags, and of a
	// git diff that prints contents (git diff <blob> -- <path> prints the
	// blob).
	commits []field
	// trees are REV:PATH operands of git diff, whose contents it prints
	// whatever the pathspecs: they must cover no secret.
	trees []field
	// limited: contents are limited only by the pathspecs after "--"
	// (specs), which must be given and cover no secret.
	limited bool
	specs   []field
}

func exposeAnyf(format string, a ...any) exposure {
	return exposure{level: exposeAny, why: fmt.Sprintf(format, a...)}
}

var (
	// gitPrinters print the objects they are given or files of any
	// revision (fsck --lost-found writes dangling blobs out).
	gitPrinters = setOf(`cat-file archive format-patch grep diff-tree diff-index diff-files fast-export bundle
		pack-objects unpack-objects notes fsck`)
	// gitWriters write another revision's files into the work tree.
	gitWriters = setOf(`checkout switch restore reset stash cherry-pick merge rebase revert pull am apply read-tree
		checkout-index worktree bisect sparse-checkout submodule clone`)
	// gitQuiet print names, ids, statistics or messages, or change refs
	// and the index from the work tree, and never an object's content.
	gitQuiet = setOf(`rev-parse rev-list ls-files ls-tree describe merge-base name-rev check-ignore check-attr
		check-ref-format count-objects cherry show-ref show-branch remote mv rm fetch push clean version help`)
)

func setOf(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// gitExposure classifies a git command (argv after the global options:
// git SUB …; a field with glob set is known only at run time) by what it
// can show of the object store.
func gitExposure(argv []field) exposure {
	if len(argv) < 2 {
		return exposure{}
	}
	sub, args := argv[1], argv[2:]
	if sub.glob {
		return exposeAnyf("runs git with a subcommand known only at run time")
	}
	name := "`git " + sub.s + "`"
	switch sub.s {
	case "log", "whatchanged", "shortlog":
		return logExposure(args)
	case "reflog":
		ops := operands(args)
		switch {
		case len(ops) == 0 || ops[0].s == "show":
			return logExposure(args)
		case ops[0].s == "exists" || ops[0].s == "list":
			return exposure{}
		case ops[0].s == "expire" || ops[0].s == "delete" || ops[0].s == "drop":
			return exposeAnyf("runs `git reflog %s`, which is not known to keep the repository's history to itself", ops[0].s)
		}
		return logExposure(args) // git reflog REF is reflog show REF
	case "diff":
		return diffExposure(args, false)
	case "show":
		return diffExposure(args, true)
	case "status":
		for _, a := range args {
			if a.s == "--" {
				break
			}
			if a.glob || len(a.s) > 3 && strings.HasPrefix("--verbose", a.s) || isShort(a.s) && strings.ContainsRune(a.s, 'v') {
				return exposure{level: exposeChecked, limited: true, specs: afterDashDash(args)} // the staged diff
			}
		}
		return exposure{}
	case "stash":
		return stashExposure(args)
	case "blame", "annotate":
		// Prints the content of the one file it names (checked by name).
		for _, a := range args {
			if a.glob {
				return exposeAnyf("runs %s on a file known only at run time", name)
			}
		}
		return exposure{}
	case "branch", "tag", "for-each-ref":
		// %(raw) prints the object a ref points to, a blob too.
		for _, a := range args {
			if l := strings.ToLower(a.s); a.glob || strings.Contains(l, "%(") && strings.Contains(l, "raw") {
				return exposeAnyf("runs %s with a format that can print the objects refs point to", name)
			}
		}
		return exposure{}
	case "config":
		for _, a := range args {
			switch {
			case a.glob:
				return exposeAnyf("runs `git config` with a word known only at run time, which could be --blob")
			case strings.HasPrefix(a.s, "--blob"):
				return exposeAnyf("runs `git config --blob`, which reads an object from the history")
			}
		}
		return exposure{}
	case "add":
		return flagsExposure(name, args, []string{"--patch", "--interactive", "--edit"}, "pie", "",
			"shows file differences to choose from")
	case "commit":
		return flagsExposure(name, args, []string{"--verbose", "--patch", "--interactive"}, "vp", "mFcCtuS",
			"shows the staged diff")
	case "checkout", "switch":
		if newBranchOnly(sub.s, args) {
			return exposure{}
		}
	case "worktree":
		if ops := operands(args); len(ops) == 1 && ops[0].s == "list" {
			return exposure{}
		}
	}
	switch {
	case gitQuiet[sub.s]:
		for _, a := range args {
			if a.glob {
				return exposeAnyf("runs %s with a word known only at run time", name)
			}
		}
		return exposure{}
	case gitWriters[sub.s]:
		return exposeAnyf("runs %s, which can write files of another revision into the work tree", name)
	case gitPrinters[sub.s]:
		return exposeAnyf("runs %s, which can print files from the repository's history", name)
	}
	return exposeAnyf("runs %s, which is not among the git commands known to keep the repository's history to themselves", name)
}

// isShort: a single-dash flag word (-sv), not "-" or a long flag.
func isShort(w string) bool { return len(w) > 1 && w[0] == '-' && w[1] != '-' }

// operands are the words before "--" that are not flags.
func operands(args []field) []field {
	var ops []field
	for _, a := range args {
		if a.s == "--" && !a.glob {
			break
		}
		if a.glob || !strings.HasPrefix(a.s, "-") || a.s == "-" {
			ops = append(ops, a)
		}
	}
	return ops
}

// afterDashDash returns the words after the first "--", nil when there
// is none.
func afterDashDash(args []field) []field {
	for i, a := range args {
		if a.s == "--" && !a.glob {
			return append([]field{}, args[i+1:]...)
		}
	}
	return nil
}

// flagsExposure: a command that prints no object unless given one of the
// long flags (or their prefixes) or short letters in bad; valueLetters
// take the rest of their word as a value (-mfix: a message).
func flagsExposure(name string, args []field, long []string, bad, valueLetters, what string) exposure {
	for _, a := range args {
		w := a.s
		switch {
		case a.glob:
			return exposeAnyf("runs %s with a word known only at run time, which could be a flag that %s", name, what)
		case w == "--":
			return exposure{}
		case strings.HasPrefix(w, "--"):
			n, _, _ := strings.Cut(w, "=")
			for _, l := range long {
				if len(n) > 2 && strings.HasPrefix(l, n) {
					return exposeAnyf("runs %s with `%s`, which %s", name, n, what)
				}
			}
		case isShort(w):
			for j := 1; j < len(w); j++ {
				if strings.IndexByte(valueLetters, w[j]) >= 0 {
					break
				}
				if strings.IndexByte(bad, w[j]) >= 0 {
					return exposeAnyf("runs %s with `-%c`, which %s", name, w[j], what)
				}
			}
		}
	}
	return exposure{}
}

// newBranchOnly: git checkout -b NAME or git switch -c NAME (also -B,
// -C, --orphan, --create…) without a start point or paths, which keeps
// the work tree as it is.
func newBranchOnly(sub string, args []field) bool {
	create := map[string]bool{"-b": sub == "checkout", "-B": sub == "checkout", "--orphan": true,
		"-c": sub == "switch", "-C": sub == "switch", "--create": sub == "switch", "--force-create": sub == "switch"}
	safe := map[string]bool{"-q": true, "--quiet": true, "-t": true, "--track": true, "--no-track": true,
		"--guess": true, "--no-guess": true}
	named, ops := false, 0
	for i := 0; i < len(args); i++ {
		w := args[i].s
		name, _, hasValue := strings.Cut(w, "=")
		switch {
		case args[i].glob || w == "--":
			return false
		case create[name]:
			if !hasValue {
				i++
			}
			named = true
		case isShort(w) && len(w) > 2 && create[w[:2]]:
			named = true // -bNAME
		case safe[name]:
		case strings.HasPrefix(w, "-"):
			return false
		default:
			ops++
		}
	}
	return named && ops == 0
}

// stashExposure: push and save (without -p) store the work tree and
// reset it to HEAD; list is a log; show without explicit statistics
// prints a patch when stash.showPatch is set; apply, pop and branch
// write a stash into the work tree.
func stashExposure(args []field) exposure {
	sub, rest := "push", args // git stash -m x is push
	if len(args) > 0 && (args[0].glob || !strings.HasPrefix(args[0].s, "-")) {
		if args[0].glob {
			return exposeAnyf("runs `git stash` with a subcommand known only at run time")
		}
		sub, rest = args[0].s, args[1:]
	}
	switch sub {
	case "push", "save":
		return flagsExposure("`git stash "+sub+"`", rest, []string{"--patch"}, "p", "m", "shows file differences to choose from")
	case "list":
		return logExposure(rest)
	case "show":
		x := diffExposure(rest, false)
		if x.level != exposeNothing {
			return exposeAnyf("runs `git stash show` without --stat or --name-only, which can print a stash's patch")
		}
		return exposure{}
	case "drop", "clear":
		return exposure{}
	}
	return exposeAnyf("runs `git stash %s`, which can write a stash's files into the work tree", sub)
}

// logNeutral are flags of git log and its kin that print no file content
// and leave pathspecs limiting: formats, revision selection, names and
// statistics. Anything else prints contents (-p, --word-diff, -S…) or is
// not known, and needs pathspecs that cover no secret.
var logNeutral = setOf(`--oneline --format --pretty --abbrev-commit --no-abbrev-commit --abbrev --no-abbrev
	--date --relative-date --graph --decorate --no-decorate --decorate-refs --decorate-refs-exclude
	--clear-decorations --source --use-mailmap --no-use-mailmap --mailmap --no-mailmap --log-size
	--all --branches --tags --remotes --glob --exclude --reflog --walk-reflogs --single-worktree --not
	--first-parent --exclude-first-parent-only --merges --no-merges --min-parents --max-parents
	--no-min-parents --no-max-parents --max-count --skip --since --after --until --before --since-as-filter
	--max-age --min-age --author --committer --grep --grep-reflog --invert-grep --all-match
	--regexp-ignore-case --basic-regexp --extended-regexp --fixed-strings --perl-regexp --reverse
	--topo-order --date-order --author-date-order --ancestry-path --simplify-by-decoration --full-history
	--dense --sparse --simplify-merges --show-pulls --boundary --left-right --left-only --right-only
	--cherry --cherry-mark --cherry-pick --parents --children --no-walk --do-walk --in-commit-order
	--color --no-color --stat --numstat --shortstat --name-only --name-status --dirstat --cumulative
	--dirstat-by-file --summary --compact-summary --raw --no-patch --no-renames --find-renames
	--find-copies --find-copies-harder --break-rewrites --relative --no-relative --diff-filter
	--stat-width --stat-name-width --stat-graph-width --stat-count --full-index --find-object
	--expand-tabs --no-expand-tabs --notes --no-notes --show-notes --standard-notes --no-standard-notes
	--show-signature --encoding --quiet --no-ext-diff --no-textconv --ignore-missing --show-linear-break
	--remove-empty --null --count --header --timestamp --objects --objects-edge --disk-usage --no-color-moved`)

// logFollowers make pathspecs stop limiting what git log prints: --follow
// and -L follow a file across renames (to a secret's old name),
// --full-diff shows whole commits, --stdin reads more pathspecs, and
// --submodule=diff prints the history of submodules, which is not
// checked.
var logFollowers = setOf(`--follow --full-diff --stdin --submodule`)

// logExposure: git log, whatchanged, shortlog, reflog show and stash
// list print no blob given as a revision (log skips non-commits), so
// only their flags matter.
func logExposure(args []field) exposure {
	content, follow := "", ""
	for _, a := range args {
		w := a.s
		if w == "--" && !a.glob {
			break // pathspecs follow
		}
		switch {
		case a.glob:
			return exposeAnyf("passes a word known only at run time to a git log command, which could be a flag that prints contents")
		case strings.HasPrefix(w, "--"):
			name, _, _ := strings.Cut(w, "=")
			switch {
			case logNeutral[name]:
			case logFollowers[name]:
				follow = name
			default:
				content = name
			}
		case isShort(w):
			for j := 1; j < len(w); j++ {
				c := w[j]
				switch {
				case strings.IndexByte("zsqiEFPRrtgDabw0123456789", c) >= 0:
				case strings.IndexByte("nMCBlXO", c) >= 0:
					j = len(w) // the rest is the value
				case c == 'L':
					follow, content, j = "-L", "-L", len(w)
				default: // -p, -u, -c, -m, -W, -U<n>, -S<s>, -G<re>, unknown
					content = "-" + string(c)
					if strings.IndexByte("USGI", c) >= 0 {
						j = len(w)
					}
				}
			}
		}
		// Other words are revisions: log skips blobs, and prints commits
		// as its flags say.
	}
	switch {
	case content == "":
		return exposure{}
	case follow != "":
		return exposeAnyf("prints file contents with `%s`, which pathspecs do not limit", follow)
	}
	return exposure{level: exposeChecked, limited: true, specs: afterDashDash(args)}
}

// diffStats ask git diff and git show for names or statistics only.
var diffStats = setOf(`--stat --numstat --shortstat --name-only --name-status --dirstat --dirstat-by-file
	--summary --compact-summary --raw --no-patch --quiet`)

// diffNeutral change neither what git diff and git show print from nor
// whether they print a patch.
var diffNeutral = setOf(`--cached --staged --merge-base --abbrev --no-abbrev --color --no-color --null
	--relative --no-relative --find-renames --find-copies --find-copies-harder --break-rewrites --no-renames
	--diff-filter --full-index --stat-width --stat-name-width --stat-graph-width --stat-count --cumulative
	--ignore-submodules --ignore-space-change --ignore-all-space --ignore-space-at-eol --ignore-blank-lines
	--ignore-cr-at-eol --minimal --patience --histogram --diff-algorithm --no-ext-diff --no-textconv
	--exit-code --oneline --format --pretty --abbrev-commit --no-abbrev-commit --date --decorate
	--no-decorate --no-notes --encoding --first-parent`)

// diffExposure: git diff (show false) and git show.
func diffExposure(args []field, show bool) exposure {
	stats, content := false, false
	var ops []field
	for _, a := range args {
		w := a.s
		if w == "--" && !a.glob {
			break
		}
		switch {
		case a.glob:
			return exposeAnyf("passes a word known only at run time to git %s, which could be a revision or a flag that prints contents", map[bool]string{true: "show", false: "diff"}[show])
		case strings.HasPrefix(w, "--"):
			name, _, _ := strings.Cut(w, "=")
			switch {
			case name == "--no-index" && !show:
				return exposure{} // files, not objects: their paths are checked as reads
			case logFollowers[name]:
				return exposeAnyf("prints file contents with `%s`, which pathspecs do not limit", name)
			case diffStats[name]:
				stats = true
			case !diffNeutral[name]:
				content = true
			}
		case isShort(w):
			for j := 1; j < len(w); j++ {
				c := w[j]
				switch {
				case c == 's':
					stats = true
				case strings.IndexByte("zqRrtabwDEiF0123456789", c) >= 0:
				case strings.IndexByte("nMCBlXO", c) >= 0:
					j = len(w)
				default:
					content = true
					j = len(w)
				}
			}
		default:
			ops = append(ops, a)
		}
	}
	x := exposure{level: exposeChecked, specs: afterDashDash(args)}
	prints := content || !stats
	if show {
		// git show prints any object it is given, whatever the flags: the
		// revisions must be commits (or REV:PATH, a file or tree by name).
		for _, op := range ops {
			if _, ok := objectPath(op.s); !ok {
				x.commits = append(x.commits, op)
			}
		}
		if len(ops) == 0 {
			x.commits = []field{{s: "HEAD"}}
		}
		x.limited = prints && len(x.commits) > 0 // a commit's patch
		if len(x.commits) == 0 {
			return exposure{}
		}
		return x
	}
	if !prints {
		return exposure{} // names and statistics, even of two blobs
	}
	if len(ops) == 2 {
		_, ok1 := objectPath(ops[0].s)
		_, ok2 := objectPath(ops[1].s)
		if ok1 && ok2 {
			x.trees = ops // two blobs or two trees named by path
			return x
		}
	}
	x.commits, x.limited = ops, true
	return x
}

// objectPath returns the path of a REV:PATH operand (also :PATH and
// :N:PATH, from the index), ok false for other revisions. The colon is
// the first outside braces (HEAD@{10:00} is a reflog entry), as git
// reads it; :/TEXT names a commit by its message.
func objectPath(rev string) (string, bool) {
	if strings.HasPrefix(rev, ":/") {
		return "", false
	}
	depth := 0
	for i := 0; i < len(rev); i++ {
		switch rev[i] {
		case '{':
			depth++
		case '}':
			if depth > 0 {
				depth--
			}
		case ':':
			if depth > 0 {
				continue
			}
			p := rev[i+1:]
			if i == 0 && len(p) >= 2 && p[0] >= '0' && p[0] <= '3' && p[1] == ':' {
				p = p[2:]
			}
			return p, true
		}
	}
	return "", false
}

// revisionEnds splits a revision operand into the revisions it names:
// both ends of A..B and A...B (an empty end is HEAD), A of ^A, A^!, A^@
// and A^-N.
func revisionEnds(rev string) []string {
	rev = strings.TrimPrefix(rev, "^")
	for _, sep := range []string{"...", ".."} {
		if a, b, ok := strings.Cut(rev, sep); ok {
			if a == "" {
				a = "HEAD"
			}
			if b == "" {
				b = "HEAD"
			}
			return []string{a, b}
		}
	}
	for _, s := range []string{"^!", "^@"} {
		if r, ok := strings.CutSuffix(rev, s); ok {
			return []string{r}
		}
	}
	if i := strings.LastIndex(rev, "^-"); i > 0 && strings.Trim(rev[i+2:], "0123456789") == "" {
		return []string{rev[:i]}
	}
	return []string{rev}
}

// spelledCommit reports whether a revision can only name a commit or a
// tree, whatever the refs say: X~N, X^N and X^{commit} peel to commits,
// :/TEXT and X^{/TEXT} search commits, X^{tree} is a tree.
func spelledCommit(rev string) bool {
	switch {
	case strings.HasPrefix(rev, ":/"),
		strings.HasSuffix(rev, "^{commit}"), strings.HasSuffix(rev, "^{tree}"),
		strings.Contains(rev, "^{/") && strings.HasSuffix(rev, "}"):
		return true
	}
	r := strings.TrimRight(rev, "0123456789")
	return len(r) > 1 && (r[len(r)-1] == '~' || r[len(r)-1] == '^')
}
