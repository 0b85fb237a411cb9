package bashperm

import (
	"fmt"
	"strings"
	"sync"

	"github.com/magenta-nvim/magenta/pkg/secrets"
)

// defaultRuleList is the corpus README's default rule set, expressed as
// Rules where a Rule can say it. A few deny flags beyond the README keep its
// promise that every path stays inside the workspace: grep -R, rg -L/--follow
// and find -L/-follow recurse through symlinks (link-to-etc), wc
// --files0-from reads its file names from a file, rg --hostname-bin runs a
// program, and rg --hidden/-./-u/--unrestricted make rg search hidden files
// such as .env (by default it skips them). git operands that name a secret
// (git show HEAD:.env, git log -p -- .env) ask too.
var defaultRuleList = []Rule{
	{Command: "ls", ValueFlags: []string{"-I", "--ignore", "-w", "--width", "-T", "--tabsize", "--hide"}},
	{Command: "cat"},
	{Command: "head", ValueFlags: []string{"-n", "-c", "--lines", "--bytes"}},
	{Command: "tail", ValueFlags: []string{"-n", "-c", "--lines", "--bytes", "-s", "--sleep-interval", "--pid", "--max-unchanged-stats"}},
	{Command: "wc", DenyFlags: []string{"--files0-from"}},
	{
		Command: "grep", Args: "pattern-then-read-paths",
		DenyFlags: []string{"-R", "--dereference-recursive"},
		ValueFlags: []string{"-e", "--regexp", "-m", "--max-count", "-A", "--after-context", "-B", "--before-context",
			"-C", "--context", "-d", "--directories", "-D", "--devices", "--include", "--exclude", "--exclude-dir",
			"--label", "--binary-files", "--group-separator"},
		PathFlags: []string{"-f", "--file", "--exclude-from"},
	},
	{
		Command: "rg", Args: "pattern-then-read-paths",
		DenyFlags: []string{"--pre", "-z", "--search-zip", "--hostname-bin", "-L", "--follow",
			"--hidden", "-.", "-u", "--unrestricted"},
		ValueFlags: []string{"-e", "--regexp", "-g", "--glob", "--iglob", "-t", "--type", "-T", "--type-not",
			"--type-add", "--type-clear", "-m", "--max-count", "-A", "--after-context", "-B", "--before-context",
			"-C", "--context", "-j", "--threads", "-M", "--max-columns", "--max-depth", "--max-filesize",
			"-r", "--replace", "-E", "--encoding", "--sort", "--sortr", "--color", "--colors",
			"--context-separator", "--path-separator", "--engine", "--pre-glob"},
		PathFlags: []string{"-f", "--file", "--ignore-file"},
	},
	{Command: "echo", Args: "any"},
	{Command: "pwd", Args: "none"},
	{Command: "which", Args: "any"},
	{
		Command: "git", Subcommands: []string{"status", "log", "diff", "show"}, Args: "any",
		DenyFlags: gitDenied,
	},
	{
		Command: "git", Subcommands: []string{"branch"}, Args: "any",
		AllowFlags: []string{"-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose", "-l", "--list",
			"-i", "--ignore-case", "-q", "--quiet", "--show-current", "--color", "--no-color", "--column",
			"--no-column", "--abbrev", "--no-abbrev", "--omit-empty"},
		ValueFlags: []string{"--sort", "--format", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at"},
	},
}

// gitDenied are the flags that make git's read-only subcommands write a
// file, run a configured program or read outside the repository.
var gitDenied = []string{"--output", "--ext-diff", "--textconv", "--no-index", "--open-files-in-pager", "--show-signature"}

// globSafe are default rules whose programs have no flag that runs code or
// writes files, so an unquoted glob is allowed once every match is checked.
var globSafe = map[string]bool{"ls": true, "cat": true, "head": true, "tail": true, "wc": true, "grep": true, "echo": true, "which": true,
	"stat": true, "diff": true, "cut": true, "nl": true, "rev": true, "tac": true, "tr": true, "fold": true,
	"expand": true, "unexpand": true, "column": true, "comm": true, "join": true, "paste": true, "cksum": true,
	"basename": true, "dirname": true, "realpath": true, "seq": true, "true": true, "false": true, "uname": true, "whoami": true,
	"id": true, "type": true, "test": true, "od": true}

// compiledDefaults is the default rules compiled, once, at the first
// command checked rather than in New: the host builds its checker while
// the first :Magenta toggle waits for its frame, and compiling ~150 rules
// there cost ~50 page faults. Shared by every Checker and never modified.
var compiledDefaults = sync.OnceValue(defaultRules)

func defaultRules() map[string][]*compiledRule {
	m := map[string][]*compiledRule{}
	for i, r := range append(append([]Rule(nil), defaultRuleList...), readOnlyRuleList...) {
		cr, err := compile(i, r)
		if err != nil {
			panic("bashperm: bad default rule: " + err.Error())
		}
		cr.noGlob = !globSafe[r.Command]
		cr.mayWrite = false
		cr.after = readOnlyAfter[r.Command]
		cr.walk = treeWalkers[r.Command]
		if r.Command == "git" {
			cr.after = gitNoSecrets
			switch r.Subcommands[0] {
			case "branch":
				cr.after = gitBranchListOnly
			case "config":
				cr.after = gitConfigGetOnly
			}
		}
		m[cr.name] = append(m[cr.name], cr)
	}
	m["find"] = []*compiledRule{{name: "find", noGlob: true, custom: checkFind}}
	m["sed"] = []*compiledRule{{name: "sed", noGlob: true, custom: checkSed}}
	// "[" is test spelled with a closing "]" (not a name a Rule accepts).
	bracket := *m["test"][0]
	bracket.name, bracket.after = "[", bracketClosed
	m["["] = []*compiledRule{&bracket}
	return m
}

// treeWalkers check what recursive readers would open (see walk.go).
var treeWalkers = map[string]func(*run, *scanned, string) string{"grep": walkGrep, "rg": walkRg, "diff": walkDiff}

// gitBranchListOnly: operands make git branch create a branch unless it is
// in list mode (-l/--list), where they are patterns.
func gitBranchListOnly(s *scanned) string {
	if len(s.rest) == 0 || s.seen["-l"] || s.seen["--list"] {
		return ""
	}
	return fmt.Sprintf("runs `git branch %s`, which creates or changes a branch (only listing is allowed)", s.rest[0].s)
}

// gitNoSecrets: an operand (revision:path or pathspec) naming a secret asks.
func gitNoSecrets(s *scanned) string {
	for _, a := range s.rest {
		parts := strings.FieldsFunc(a.s, func(r rune) bool { return strings.ContainsRune("/:()", r) })
		if name := secrets.In(parts); name != "" {
			return fmt.Sprintf("passes %s to git, which names a secret file (%s)", a.s, name)
		}
	}
	return ""
}

// gitSafeGlobals are the only options allowed between git and its
// subcommand: -c, -C, --git-dir, --work-tree, --config-env, -p/--paginate,
// --exec-path and the rest can point git at code to run.
var gitSafeGlobals = map[string]bool{
	"--no-pager": true, "-P": true, "--no-optional-locks": true, "--literal-pathspecs": true,
	"--glob-pathspecs": true, "--noglob-pathspecs": true, "--icase-pathspecs": true,
	"--no-replace-objects": true,
}

// stripGitGlobals checks and removes git's global options, returning argv
// as "git SUBCOMMAND ...".
func stripGitGlobals(argv []field) ([]field, string) {
	i := 1
	for ; i < len(argv) && strings.HasPrefix(argv[i].s, "-"); i++ {
		if !gitSafeGlobals[argv[i].s] {
			name, _, _ := strings.Cut(argv[i].s, "=")
			return nil, fmt.Sprintf("uses the git option `%s` before the subcommand, which can make git run other programs or use another repository", name)
		}
	}
	out := make([]field, 0, len(argv)-i+1)
	out = append(out, argv[0])
	return append(out, argv[i:]...), ""
}

// findDenied are find's options and primaries that run commands, write or
// delete files, or follow symlinks out of the workspace.
var findDenied = map[string]string{
	"-exec": "runs a command", "-execdir": "runs a command", "-ok": "runs a command", "-okdir": "runs a command",
	"-delete": "deletes files", "-fls": "writes a file", "-L": "follows symlinks",
	"-follow": "follows symlinks", "-files0-from": "reads its starting points from a file",
}

// checkFind: leading options, then starting points (read paths, up to the
// first word that starts an expression), then the expression, whose
// primaries must not run, write or delete anything.
func checkFind(r *run, argv []field, cwd string) string {
	i := 1
	for ; i < len(argv); i++ {
		w := argv[i].s
		if w == "-H" || w == "-P" || strings.HasPrefix(w, "-O") {
			continue
		}
		if w == "-D" && i+1 < len(argv) {
			i++
			continue
		}
		break
	}
	for ; i < len(argv); i++ {
		w := argv[i].s
		if w == "--" {
			continue
		}
		if strings.HasPrefix(w, "-") || w == "(" || w == ")" || w == "!" || w == "," {
			break
		}
		if reason := r.checkPath(w, cwd, modeRead); reason != "" {
			return reason
		}
	}
	for _, a := range argv[1:] {
		what, bad := findDenied[a.s]
		if !bad && strings.HasPrefix(a.s, "-fprint") {
			what, bad = "writes a file", true
		}
		if bad {
			return fmt.Sprintf("runs `find` with `%s`, which %s", a.s, what)
		}
	}
	return ""
}
