package bashperm

import (
	"fmt"
	"strings"
)

// field is one argv element as bash would pass it. glob marks a field that
// came from a word with an unquoted glob (a match, or the pattern itself
// when nothing matched).
type field struct {
	s    string
	glob bool
}

// scanned is a command line split into flags and operands by one rule.
type scanned struct {
	ops        []field         // operands, in order
	rest       []field         // operands after the subcommand
	seen       map[string]bool // flags seen: "--name" or "-x" per letter
	pathValues []string        // values of PathFlags
	values     []flagValue     // values of every value flag, in order
	problem    string          // the first flag that forces ask
}

// checkCommand decides one simple command whose argv is fully expanded.
// It returns "" when some rule allows it, else the reason to ask.
func (r *run) checkCommand(argv []field, cwd string) string {
	name := argv[0].s
	if argv[0].glob {
		return "the command name comes from an unquoted glob"
	}
	if name == "cd" {
		return "" // handled by the caller, which tracks the directory
	}
	rules := r.c.rulesFor(name)
	if len(rules) == 0 {
		return fmt.Sprintf("runs `%s`, which no rule allows", name)
	}
	if name == "git" {
		var reason string
		if argv, reason = stripGitGlobals(argv); reason != "" {
			return reason
		}
	}
	first, subReason := "", ""
	for _, cr := range rules {
		reason, subMatched := r.applyRule(cr, argv, cwd)
		if reason == "" {
			if cr.mayWrite {
				r.sawWriter = true
			}
			if name == "git" {
				return r.gitRepoReason(argv, cwd)
			}
			return ""
		}
		if subMatched && first == "" {
			first = reason
		} else if !subMatched && subReason == "" {
			subReason = reason
		}
	}
	if first != "" {
		return first
	}
	return subReason
}

// applyRule checks argv against one rule. subMatched is false when the
// rule's subcommands did not match (so another rule's reason is better).
func (r *run) applyRule(cr *compiledRule, argv []field, cwd string) (reason string, subMatched bool) {
	if cr.noGlob {
		for _, a := range argv[1:] {
			if a.glob {
				return fmt.Sprintf("uses an unquoted glob with `%s`, which could expand to a file named like a dangerous flag", cr.name), true
			}
		}
	}
	if cr.custom != nil {
		return cr.custom(r, argv, cwd), true
	}
	name := cr.name
	if cr.subs != nil {
		name = label(argv)
	}
	s := cr.scan(argv[1:], name)
	if cr.subs != nil {
		reason = fmt.Sprintf("runs `%s`, which no rule allows", label(argv))
		for _, sub := range cr.subs {
			if !prefixMatch(s.ops, sub) {
				continue
			}
			subMatched = true
			if s.problem != "" {
				return s.problem, true
			}
			s.rest = s.ops[len(sub):]
			if reason = r.checkOperands(cr, &s, cwd); reason == "" {
				return "", true
			}
		}
		return reason, subMatched
	}
	if s.problem != "" {
		return s.problem, true
	}
	s.rest = s.ops
	return r.checkOperands(cr, &s, cwd), true
}

// label names the command for reasons: the program and its first operand
// when that looks like a subcommand.
func label(argv []field) string {
	for _, a := range argv[1:] {
		if !strings.HasPrefix(a.s, "-") {
			return argv[0].s + " " + a.s
		}
	}
	return argv[0].s
}

func prefixMatch(ops []field, sub []string) bool {
	if len(ops) < len(sub) {
		return false
	}
	for i, w := range sub {
		if ops[i].glob || ops[i].s != w {
			return false
		}
	}
	return true
}

func (r *run) checkOperands(cr *compiledRule, s *scanned, cwd string) string {
	for _, p := range s.pathValues {
		if reason := r.checkPath(p, cwd, modeRead); reason != "" {
			return reason
		}
	}
	rest := s.rest
	mode := modeRead
	switch cr.args {
	case argsNone:
		if len(rest) > 0 {
			return fmt.Sprintf("passes `%s` to `%s`, which takes no operands here", rest[0].s, cr.name)
		}
	case argsAny:
		rest = nil
	case argsWritePaths:
		mode = modeWrite
	case argsPatternPaths:
		patFlag := s.seen["-e"] || s.seen["-f"] || s.seen["--regexp"] || s.seen["--file"]
		if !patFlag && len(rest) > 0 {
			if rest[0].glob {
				return fmt.Sprintf("the pattern for `%s` comes from an unquoted glob", cr.name)
			}
			rest = rest[1:]
		}
	}
	for _, a := range rest {
		if reason := r.checkPath(a.s, cwd, mode); reason != "" {
			return reason
		}
	}
	if cr.after != nil {
		if reason := cr.after(s); reason != "" {
			return reason
		}
	}
	if cr.walk != nil {
		return cr.walk(r, s, cwd)
	}
	return ""
}

// flagValue is a value flag as written (--glob, -g) and its value.
type flagValue struct{ flag, value string }

// flagName is the flag part of the word w that carried value: "--glob"
// for --glob=x, "-g" for -gx or -g x.
func flagName(w, value string) string {
	if name, _, ok := strings.Cut(w, "="); ok && strings.HasPrefix(w, "--") {
		return name
	}
	if strings.HasPrefix(w, "--") {
		return w
	}
	if j := len(w) - len(value); j >= 2 && strings.HasSuffix(w, value) && value != "" {
		return "-" + w[j-1:j]
	}
	return "-" + w[len(w)-1:]
}

// scan splits args into flags and operands, checking every flag; the first
// flag that forces ask is recorded in problem (scanning goes on, so the
// operands, and with them the subcommand, are still known). Words that
// start with "-" are flags until "--" (GNU-style permutation: flags may
// follow operands); "-" alone is an operand. cmd names the command in
// reasons.
func (cr *compiledRule) scan(args []field, cmd string) scanned {
	s := scanned{seen: map[string]bool{}}
	fail := func(reason string) {
		if s.problem == "" {
			s.problem = reason
		}
	}
	dashdash := false
	for i := 0; i < len(args); i++ {
		w := args[i].s
		if dashdash || w == "-" || !strings.HasPrefix(w, "-") {
			s.ops = append(s.ops, args[i])
			continue
		}
		if w == "--" {
			dashdash = true
			continue
		}
		takes, isPath, value, hasValue := false, false, "", false
		name, val, hasEq := strings.Cut(w, "=")
		// exact is the single-dash spelling of a whole-word flag: -exec,
		// -run=x, and --exec (Go's flag package accepts both dashes).
		exact := name
		if strings.HasPrefix(name, "--") {
			exact = name[1:]
		}
		switch {
		case cr.deny.exact[exact]:
			fail(denied(name, cmd))
		case cr.value.exact[exact] || cr.path.exact[exact]:
			s.seen[exact] = true
			isPath = cr.path.exact[exact]
			takes, value, hasValue = !hasEq, val, hasEq
		case cr.allowSet && cr.allow.exact[exact]:
			s.seen[exact] = true
		case strings.HasPrefix(w, "--"):
			if cr.deny.deniesLong(name) {
				fail(denied(name, cmd))
			}
			if cr.allowSet && !cr.allow.long[name] {
				fail(notAllowed(name, cmd))
			}
			s.seen[name] = true
			if cr.value.long[name] || cr.path.long[name] {
				isPath = cr.path.long[name]
				takes, value, hasValue = !hasEq, val, hasEq
			}
		default: // joined short flags: -la, -n5, -zn
			for j := 1; j < len(w); j++ {
				c := w[j]
				f := "-" + string(c)
				if cr.deny.short[c] {
					fail(denied(f, cmd))
				}
				if cr.allowSet && !cr.allow.short[c] {
					fail(notAllowed(f, cmd))
				}
				s.seen[f] = true
				if cr.value.short[c] || cr.path.short[c] {
					isPath = cr.path.short[c]
					if j+1 < len(w) {
						value, hasValue = w[j+1:], true
					} else {
						takes = true
					}
					break
				}
			}
		}
		if takes && i+1 < len(args) {
			i++
			if args[i].glob {
				fail(fmt.Sprintf("the value of `%s` for `%s` comes from an unquoted glob", w, cmd))
			}
			value, hasValue = args[i].s, true
		}
		if isPath && hasValue {
			s.pathValues = append(s.pathValues, value)
		}
		if hasValue {
			s.values = append(s.values, flagValue{flagName(w, value), value})
		}
	}
	return s
}

func denied(flag, cmd string) string {
	return fmt.Sprintf("uses `%s`, which the rule for `%s` does not allow without asking", flag, cmd)
}

func notAllowed(flag, cmd string) string {
	return fmt.Sprintf("uses `%s`, which is not among the flags allowed for `%s`", flag, cmd)
}
