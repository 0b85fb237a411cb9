package bashperm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Rule is a user rule from setup() (Lua) or a JSON config file. A rule
// allows one program; several rules for the same program are alternatives
// (the command is allowed when any of them allows it).
type Rule struct {
	// Command is the program name, e.g. "npm": a bare name, never a path.
	Command string `json:"command"`
	// Subcommands are the allowed leading operands, space-separated for
	// nesting ("run lint"). Empty means any.
	Subcommands []string `json:"subcommands,omitempty"`
	// AllowFlags, when set, are the only flags that may appear.
	AllowFlags []string `json:"allowFlags,omitempty"`
	// DenyFlags force ask, also as --flag=value, as an abbreviation of a
	// long flag (--ext for --ext-diff) and inside joined short flags (-zn).
	DenyFlags []string `json:"denyFlags,omitempty"`
	// ValueFlags consume the next word as their value (unless joined:
	// --flag=value, -nVALUE). Declare only flags that really take a value:
	// a flag wrongly declared here hides the next word from the checks.
	ValueFlags []string `json:"valueFlags,omitempty"`
	// PathFlags are value flags whose value is a file the program reads
	// (grep -f FILE); the value is checked like a read-path operand.
	// This field extends the brief's API.
	PathFlags []string `json:"pathFlags,omitempty"`
	// Args says what the operands (after the subcommand) may be: "none",
	// "any", "read-paths" (the default), "write-paths" or
	// "pattern-then-read-paths" (the first operand is a pattern unless
	// -e, --regexp, -f or --file supplied it; the rest are read paths).
	Args string `json:"args,omitempty"`
}

// Config is the user's configuration: rules added to the defaults.
type Config struct {
	Rules []Rule `json:"rules"`
	// RequireApproval are command patterns that ask even when the sandbox
	// could confine them, added to DefaultRequireApproval: a program
	// name, then flags that must all be present and leading operands
	// ("make deploy", "rm -rf", "git push"). See approvalPattern.matches.
	RequireApproval []string `json:"requireApproval,omitempty"`
}

// ParseConfig decodes a JSON config. Unknown fields are an error that names
// them; so is trailing data after the object.
func ParseConfig(data []byte) (Config, error) {
	var cfg Config
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cfg); err != nil {
		return Config{}, fmt.Errorf("bashperm config: %w", err)
	}
	if dec.More() {
		return Config{}, errors.New("bashperm config: unexpected data after the JSON object")
	}
	return cfg, nil
}

type argsKind int

const (
	argsReadPaths argsKind = iota
	argsNone
	argsAny
	argsWritePaths
	argsPatternPaths
)

var argsKinds = map[string]argsKind{
	"":                        argsReadPaths,
	"read-paths":              argsReadPaths,
	"none":                    argsNone,
	"any":                     argsAny,
	"write-paths":             argsWritePaths,
	"pattern-then-read-paths": argsPatternPaths,
}

// reservedCommands are shell builtins that change how the shell itself
// parses, resolves or runs later commands; a rule for them would let a
// checked command line rewrite the meaning of the rest, so New refuses it.
// cd is built in (it moves the working directory the checker tracks).
var reservedCommands = map[string]bool{
	"cd": true, "pushd": true, "popd": true, "eval": true, "exec": true,
	"source": true, ".": true, "command": true, "builtin": true,
	"alias": true, "unalias": true, "trap": true, "set": true, "shopt": true,
	"enable": true, "hash": true, "export": true, "declare": true,
	"typeset": true, "local": true, "readonly": true, "unset": true,
}

var (
	// Regular expressions are compiled on first use (sync.OnceValue), not
	// at package init: every host start, and so the first toggle, would
	// pay for them.
	commandRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.+-]*$`) })
	flagRe    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^--?[^-=\s][^=\s]*$`) })
	subWordRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[^\s'"\\$` + "`" + `*?\[\]{}~;&|<>()]+$`) })
)

// compiledRule is a Rule prepared for matching.
type compiledRule struct {
	name     string
	subs     [][]string // nil: any operands
	args     argsKind
	allowSet bool
	allow    flagSet
	deny     flagSet
	value    flagSet
	path     flagSet
	// noGlob: any unquoted glob in the command line asks, because the
	// program has flags that run code or write files and a glob could
	// expand to a planted file named like one of them.
	noGlob bool
	// mayWrite: the program may create files, so a glob elsewhere in the
	// same command line could match what it creates (see Check).
	mayWrite bool
	// custom replaces the generic operand handling (find).
	custom func(r *run, argv []field, cwd string) string
	// after runs once the generic checks passed (git branch).
	after func(s *scanned) string
	// walk runs last, for programs that read whole trees (grep -r, rg).
	walk func(r *run, s *scanned, cwd string) string
}

// flagSet holds flags of three shapes: long (--x), short letters (-x) and
// single-dash words of several letters (-exec), matched whole.
type flagSet struct {
	long  map[string]bool
	short [256]bool
	exact map[string]bool
}

func (s *flagSet) add(f string) {
	switch {
	case strings.HasPrefix(f, "--"):
		if s.long == nil {
			s.long = map[string]bool{}
		}
		s.long[f] = true
	case len(f) == 2:
		s.short[f[1]] = true
	default:
		if s.exact == nil {
			s.exact = map[string]bool{}
		}
		s.exact[f] = true
	}
}

// deniesLong reports whether the long flag name (without =value) is denied,
// also as an abbreviation: GNU getopt and git accept unique prefixes.
func (s *flagSet) deniesLong(name string) bool {
	if s.long[name] {
		return true
	}
	if len(name) <= 2 {
		return false
	}
	for d := range s.long {
		if strings.HasPrefix(d, name) {
			return true
		}
	}
	return false
}

// compile validates one rule; i is its index for error messages.
func compile(i int, r Rule) (*compiledRule, error) {
	bad := func(field, format string, a ...any) error {
		return fmt.Errorf("rule %d (%q): %s: %s", i, r.Command, field, fmt.Sprintf(format, a...))
	}
	if r.Command == "" {
		return nil, bad("command", "is empty")
	}
	if !commandRe().MatchString(r.Command) {
		return nil, bad("command", "must be a bare program name (no path, spaces or shell characters)")
	}
	if reservedCommands[r.Command] {
		return nil, bad("command", "%s is a shell builtin that changes how later commands run; it cannot be allowed by a rule", r.Command)
	}
	kind, ok := argsKinds[r.Args]
	if !ok {
		return nil, bad("args", "unknown kind %q (want none, any, read-paths, write-paths or pattern-then-read-paths)", r.Args)
	}
	cr := &compiledRule{name: r.Command, args: kind, mayWrite: kind == argsWritePaths || kind == argsAny}
	for j, s := range r.Subcommands {
		words := strings.Fields(s)
		if len(words) == 0 {
			return nil, bad(fmt.Sprintf("subcommands[%d]", j), "is empty")
		}
		for _, w := range words {
			if !subWordRe().MatchString(w) || strings.HasPrefix(w, "-") {
				return nil, bad(fmt.Sprintf("subcommands[%d]", j), "%q is not a plain word", w)
			}
		}
		cr.subs = append(cr.subs, words)
	}
	lists := []struct {
		name  string
		flags []string
		set   *flagSet
	}{
		{"allowFlags", r.AllowFlags, &cr.allow},
		{"denyFlags", r.DenyFlags, &cr.deny},
		{"valueFlags", r.ValueFlags, &cr.value},
		{"pathFlags", r.PathFlags, &cr.path},
	}
	for _, l := range lists {
		for j, f := range l.flags {
			if !flagRe().MatchString(f) {
				return nil, bad(fmt.Sprintf("%s[%d]", l.name, j), "%q is not a flag (want -x, -name or --name, without =value)", f)
			}
			l.set.add(f)
		}
	}
	cr.allowSet = len(r.AllowFlags) > 0
	for _, f := range r.DenyFlags {
		for _, a := range r.AllowFlags {
			if f == a {
				return nil, bad("denyFlags", "%q is also in allowFlags", f)
			}
		}
	}
	if cr.allowSet {
		for _, l := range [][]string{r.ValueFlags, r.PathFlags} {
			for _, f := range l {
				cr.allow.add(f)
			}
		}
	}
	cr.noGlob = len(r.DenyFlags) > 0
	return cr, nil
}

// Checker decides whether commands may run without asking. It is immutable
// after New and safe for concurrent use.
type Checker struct {
	// user holds the user's rules by program; a program without one
	// falls to the shared defaults (compiledDefaults).
	user map[string][]*compiledRule
	// requireApproval: DefaultRequireApproval, then the user's patterns.
	requireApproval []approvalPattern
}

// rulesFor returns the rules for program name: the user's when there
// are any (they replace the defaults), else the defaults.
func (c *Checker) rulesFor(name string) []*compiledRule {
	if rs, ok := c.user[name]; ok {
		return rs
	}
	return compiledDefaults()[name]
}

// New builds a Checker from the default rules plus cfg's rules. A user rule
// for a program replaces every default rule for that program (several user
// rules for one program are alternatives). git keeps its global-option
// check (only harmless options such as --no-pager before the subcommand)
// even under user rules; cd cannot be overridden.
func New(cfg Config) (*Checker, error) {
	c := &Checker{user: map[string][]*compiledRule{}}
	for i, r := range cfg.Rules {
		cr, err := compile(i, r)
		if err != nil {
			return nil, err
		}
		c.user[cr.name] = append(c.user[cr.name], cr)
	}
	for i, p := range append(append([]string(nil), DefaultRequireApproval...), cfg.RequireApproval...) {
		ap, err := compilePattern(i-len(DefaultRequireApproval), p)
		if err != nil {
			return nil, err
		}
		ap.destroys = i < len(DefaultRequireApproval) && slices.Contains(DefaultDestructive, p)
		c.requireApproval = append(c.requireApproval, ap)
	}
	return c, nil
}
