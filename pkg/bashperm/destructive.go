package bashperm

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// The DefaultDestructive cases a pattern cannot express (see its doc):
// whether git checkout restores paths, whether git restore touches the
// work tree, rm fed by find -exec or xargs, and inline interpreter code.

// destroys returns why argv (base is its program's base name) asks
// because it deletes or overwrites workspace files in a way the patterns
// cannot express, or "". moreArgs: a wrapper adds operands the check
// cannot see.
func (k *confined) destroys(base string, argv []cword, moreArgs bool) string {
	switch {
	case base == "rm" && moreArgs:
		return "runs `rm` on files that find -exec or xargs choose, " + destroysWhich
	case base == "git":
		return k.gitDestroys(argv)
	}
	if in, ok := interpreterFor(base); ok && in.runsInlineCode(argv[1:]) {
		return fmt.Sprintf("runs `%s` with inline code (which the check cannot read), which can delete or overwrite %s", base, destroysRule)
	}
	return ""
}

// destroysRule names the rule in every reason of a destructive command.
const (
	destroysRule  = "files in the workspace that no undo brings back — it asks until checkpoints (rewind) can restore them"
	destroysWhich = "which deletes or overwrites " + destroysRule
)

// gitDestroys: git checkout over paths and git restore of the work tree.
func (k *confined) gitDestroys(argv []cword) string {
	dirs, sub, rest, ok := gitSubcommand(argv)
	if !ok {
		return "" // a subcommand known only at run time matches `git push` already
	}
	switch sub {
	case "checkout":
		if what := k.checkoutPaths(dirs, rest); what != "" {
			return fmt.Sprintf("runs `git checkout %s`, %s", what, destroysWhich)
		}
	case "restore":
		if restoresWorkTree(rest) {
			return "runs `git restore` on the work tree, " + destroysWhich
		}
	}
	return ""
}

// gitSubcommand splits argv (git …) at the subcommand, skipping the
// global options; dirs are the -C values in order. ok is false when a
// word before the subcommand is known only at run time.
func gitSubcommand(argv []cword) (dirs []string, sub string, rest []cword, ok bool) {
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		switch {
		case !a.known:
			return nil, "", nil, false
		case a.s == "-C" || a.s == "-c" || a.s == "--git-dir" || a.s == "--work-tree" ||
			a.s == "--namespace" || a.s == "--config-env" || a.s == "--super-prefix":
			if i+1 >= len(argv) || !argv[i+1].known {
				return nil, "", nil, false
			}
			if a.s == "-C" {
				dirs = append(dirs, argv[i+1].s)
			}
			i++
		case strings.HasPrefix(a.s, "-"):
		default:
			return dirs, a.s, argv[i+1:], true
		}
	}
	return dirs, "", nil, true
}

// checkoutPaths says what a `git checkout` with these arguments (after
// the subcommand) restores over the work tree, or "" when it switches
// branches. git reads `checkout X` as a branch switch when X is a commit
// and as a path restore otherwise; the check cannot resolve revisions,
// so one operand that names an existing file or directory (from any
// possible working directory, after -C), or is a pathspec glob or magic,
// counts as paths. Two operands are `<rev> <paths>`; anything after "--"
// is paths. -f/--force are DefaultDestructive patterns.
func (k *confined) checkoutPaths(dirs []string, args []cword) string {
	var ops []cword
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case !a.known:
			return "<a word known only at run time>"
		case a.s == "--":
			if i+1 < len(args) {
				return "-- <paths>"
			}
		case a.s == "-b" || a.s == "-B" || a.s == "--orphan":
			i++ // the new branch's name
		case strings.HasPrefix(a.s, "--pathspec-from-file"):
			return "--pathspec-from-file"
		case a.s == "-" || !strings.HasPrefix(a.s, "-"):
			ops = append(ops, a)
		case !strings.HasPrefix(a.s, "--") && strings.ContainsAny(a.s[len(a.s)-1:], "bB"):
			i++ // -fb NAME: the last letter takes the next word
		}
	}
	switch {
	case len(ops) >= 2:
		return "<rev> <paths>"
	case len(ops) == 1 && k.pathspecHere(dirs, ops[0].s):
		return ops[0].s
	}
	return ""
}

// pathspecHere: git would take p for a pathspec that matches files in
// the work tree: it has glob or magic characters, or names something that
// exists from one of the possible working directories.
func (k *confined) pathspecHere(dirs []string, p string) bool {
	if p == "-" {
		return false // the previous branch
	}
	if strings.ContainsAny(p, "*?[") || strings.HasPrefix(p, ":") {
		return true
	}
	for _, cwd := range k.cwds {
		for _, d := range dirs {
			cwd = joinRaw(cwd, d)
		}
		if _, err := os.Lstat(joinRaw(cwd, p)); err == nil {
			return true
		}
	}
	return false
}

// restoresWorkTree: git restore writes the work tree unless only
// --staged (-S) is given; --worktree (-W) adds it back.
func restoresWorkTree(args []cword) bool {
	var long []string
	staged, worktree := false, false
	for _, a := range args {
		switch {
		case !a.known:
			return true
		case a.s == "--":
			return !staged || worktree
		case strings.HasPrefix(a.s, "--"):
			name, _, _ := strings.Cut(a.s, "=")
			long = append(long, name)
		case strings.HasPrefix(a.s, "-") && a.s != "-":
			letters, _, _ := strings.Cut(a.s[1:], "s") // -s takes the source
			staged = staged || strings.Contains(letters, "S")
			worktree = worktree || strings.Contains(letters, "W")
		}
	}
	staged = staged || hasLong(long, "--staged")
	worktree = worktree || hasLong(long, "--worktree")
	return !staged || worktree
}

// interpreter describes how a language runtime reads its options, to find
// code given on the command line or on standard input.
type interpreter struct {
	code    string   // letters whose value is code: python -c, perl -e
	long    []string // long flags whose value is code: node --eval
	value   string   // letters that take the rest of the word or the next word
	ends    string   // letters whose value runs instead of stdin: python -m module, php -f file
	noStdin []string // flags with which nothing is read from stdin (--version)
}

var (
	pythonLike  = interpreter{code: "c", value: "WXQ", ends: "m", noStdin: []string{"-V", "--version", "-h", "--help", "-?"}}
	interpreted = map[string]interpreter{
		"node": {code: "ep", long: []string{"--eval", "--print"}, value: "rC",
			noStdin: []string{"-v", "--version", "-h", "--help", "--test", "--run", "--v8-options"}},
		"perl": {code: "eEi", value: "IMmxdDCF", noStdin: []string{"-v", "-V", "--version", "-h", "--help"}},
		"ruby": {code: "ei", value: "IrCEFWKx", noStdin: []string{"-v", "--version", "-h", "--help"}},
		"php": {code: "rBRE", value: "cdzt", ends: "fFS",
			noStdin: []string{"-v", "--version", "-h", "--help", "-i", "--info", "-m", "--modules", "--ini"}},
	}
	// Regular expressions are compiled on first use (sync.OnceValue), not
	// at package init: every host start, and so the first toggle, would
	// pay for them.
	pythonName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^python[0-9.]*$`) })
)

// interpreterFor returns the interpreter a program name runs.
func interpreterFor(base string) (interpreter, bool) {
	if pythonName().MatchString(base) {
		return pythonLike, true
	}
	if base == "nodejs" {
		base = "node"
	}
	in, ok := interpreted[base]
	return in, ok
}

// runsInlineCode reports whether args (after the program name) give the
// interpreter code to run: a code flag before the script operand, or no
// script at all (the program comes from stdin: `python3 - <<EOF`, `… |
// node`). An operand right after an unknown long flag may be its value,
// so code flags are looked for past it; a word known only at run time
// could be a code flag.
func (in interpreter) runsInlineCode(args []cword) bool {
	mayBeValue, sawOperand, quiet := false, false, false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case !a.known:
			return true
		case a.s == "-":
			return true
		case a.s == "--":
			return i+1 >= len(args)
		case slices.Contains(in.noStdin, a.s):
			quiet = true
		case strings.HasPrefix(a.s, "--"):
			name, _, hasEq := strings.Cut(a.s, "=")
			for _, l := range in.long {
				if name == l || len(name) > 3 && strings.HasPrefix(l, name) {
					return true
				}
			}
			mayBeValue = !hasEq
		case strings.HasPrefix(a.s, "-"):
			for j := 1; j < len(a.s); j++ {
				c := a.s[j]
				switch {
				case strings.IndexByte(in.code, c) >= 0:
					return true
				case strings.IndexByte(in.ends, c) >= 0:
					return false
				case strings.IndexByte(in.value, c) >= 0:
					// The value is the rest of the word, or the next
					// word — unless that looks like a flag: some of
					// these take only a joined value (perl -x), and
					// skipping `-e` would miss the code.
					if j == len(a.s)-1 && i+1 < len(args) && !strings.HasPrefix(args[i+1].s, "-") {
						i++
					}
					j = len(a.s)
				}
			}
			mayBeValue = false
		case mayBeValue:
			mayBeValue, sawOperand = false, true
		default:
			return false // the script; what follows is its arguments
		}
	}
	return !sawOperand && !quiet
}
