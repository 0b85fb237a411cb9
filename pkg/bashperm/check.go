package bashperm

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// Env is where a command would run.
type Env struct {
	Cwd       string // absolute working directory of the command
	Workspace string // absolute workspace root; paths must stay inside it
	Home      string // the user's home: ~ asks unconfined; confined, it names this
	// Writable and Readable are the sandbox's policy, given a resolved
	// absolute path. Both set means a sandbox can confine the command,
	// and a command that would ask may get Verdict.Sandbox instead; nil
	// (either) means no sandbox, and the verdicts are allow or ask.
	Writable, Readable func(path string) bool
}

// Verdict of a check: Allow (safe anywhere), Sandbox (may run without
// asking, but only confined), or neither (ask).
type Verdict struct {
	Allow bool
	// Sandbox: not safe unconfined, but its only risks are running
	// workspace code and writing where the sandbox lets it. Never set
	// together with Allow.
	Sandbox bool
	// Reason is one short human sentence: for ask, why; for Sandbox, why
	// it may not run unconfined.
	Reason string
}

const (
	maxCommandLen = 1 << 20 // longer commands ask
	maxCwds       = 8       // possible working directories tracked at once
)

var parsers = sync.Pool{New: func() any {
	return syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(false))
}}

// run is the state of one Check.
type run struct {
	c         *Checker
	src       string
	ws        string // resolved workspace root
	home      string // Env.Home: where the user's git config is
	sawGlob   bool   // some word had an unquoted glob
	sawWriter bool   // some command may create files
}

func ask(format string, a ...any) Verdict {
	return Verdict{Reason: fmt.Sprintf(format, a...)}
}

// Check decides whether command may run in env without asking the user,
// and when not, whether it may run confined (env.Writable and
// env.Readable set) without asking. It never panics: an unexpected
// failure is an ask.
func (c *Checker) Check(command string, env Env) (v Verdict) {
	defer func() {
		if p := recover(); p != nil {
			v = ask("internal error while checking: %v", p)
		}
	}()
	v = c.checkUnconfined(command, env)
	if v.Allow || env.Writable == nil || env.Readable == nil {
		return v
	}
	if reason := c.checkConfined(command, env); reason != "" {
		return ask("%s", reason)
	}
	return Verdict{Sandbox: true, Reason: v.Reason}
}

// checkUnconfined is the allow-or-ask check: what may run anywhere.
func (c *Checker) checkUnconfined(command string, env Env) Verdict {
	if strings.TrimSpace(command) == "" {
		return ask("empty command")
	}
	if len(command) > maxCommandLen {
		return ask("command is too long to check")
	}
	if !filepath.IsAbs(env.Cwd) || !filepath.IsAbs(env.Workspace) {
		return ask("working directory and workspace must be absolute paths")
	}
	ws, err := resolve(filepath.Clean(env.Workspace))
	if err != nil {
		return ask("cannot resolve the workspace: %v", err)
	}
	p := parsers.Get().(*syntax.Parser)
	f, err := p.Parse(strings.NewReader(command), "")
	if err != nil {
		parsers.Put(p)
		return ask("could not parse: %v", err)
	}
	defer parsers.Put(p)
	if len(f.Stmts) == 0 {
		return ask("empty command")
	}
	r := &run{c: c, src: command, ws: ws, home: env.Home}
	cwds := []string{filepath.Clean(env.Cwd)}
	if phys, err := resolve(cwds[0]); err == nil && phys != cwds[0] {
		cwds = append(cwds, phys) // bash may start from either spelling
	}
	for _, cwd := range cwds {
		if reason := r.checkPath(".", cwd, modeCwd); reason != "" {
			return ask("%s", reason)
		}
	}
	for _, s := range f.Stmts {
		ok, fail, reason := r.stmt(s, cwds)
		if reason != "" {
			return ask("%s", reason)
		}
		if cwds = union(ok, fail); len(cwds) > maxCwds {
			return ask("too many possible working directories to track")
		}
	}
	if r.sawGlob && r.sawWriter {
		return ask("combines an unquoted glob with a command that can create files, so the glob's matches cannot be known in advance")
	}
	return Verdict{Allow: true}
}

// stmt checks one statement run from any of cwds. It returns the possible
// working directories after it succeeds and after it fails.
func (r *run) stmt(s *syntax.Stmt, cwds []string) (ok, fail []string, reason string) {
	switch {
	case s.Negated:
		return nil, nil, "negates a command with `!`"
	case s.Background:
		return nil, nil, "runs a command in the background with `&`"
	case s.Coprocess || s.Disown:
		return nil, nil, "uses a coprocess or disown operator"
	}
	for _, cwd := range cwds {
		if reason := r.redirects(s.Redirs, cwd); reason != "" {
			return nil, nil, reason
		}
	}
	switch cmd := s.Cmd.(type) {
	case nil:
		return nil, nil, "has a redirection without a command"
	case *syntax.CallExpr:
		if len(cmd.Assigns) > 0 {
			name := "…"
			if cmd.Assigns[0].Name != nil {
				name = cmd.Assigns[0].Name.Value
			}
			return nil, nil, fmt.Sprintf("sets a variable (`%s=…`)", name)
		}
		for _, cwd := range cwds {
			next, reason := r.call(cmd, cwd)
			if reason != "" {
				return nil, nil, reason
			}
			ok = union(ok, next)
		}
		return ok, cwds, ""
	case *syntax.BinaryCmd:
		switch cmd.Op {
		case syntax.AndStmt, syntax.OrStmt:
			return andOr(cmd, cwds, r.stmt)
		case syntax.Pipe, syntax.PipeAll:
			// Each side runs in a subshell: a cd there changes nothing after.
			if _, _, reason := r.stmt(cmd.X, cwds); reason != "" {
				return nil, nil, reason
			}
			if _, _, reason := r.stmt(cmd.Y, cwds); reason != "" {
				return nil, nil, reason
			}
			return cwds, cwds, ""
		}
		return nil, nil, fmt.Sprintf("uses the operator `%s`", cmd.Op)
	}
	return nil, nil, compoundReason(s.Cmd)
}

func compoundReason(cmd syntax.Command) string {
	switch c := cmd.(type) {
	case *syntax.Subshell:
		return "runs a subshell `( … )`"
	case *syntax.Block:
		return "uses a brace group `{ … }`"
	case *syntax.FuncDecl:
		return "defines a function"
	case *syntax.IfClause:
		return "uses an `if` statement"
	case *syntax.WhileClause:
		return "uses a `while` or `until` loop"
	case *syntax.ForClause:
		return "uses a `for` loop"
	case *syntax.CaseClause:
		return "uses a `case` statement"
	case *syntax.ArithmCmd:
		return "uses an arithmetic command `(( … ))`"
	case *syntax.TestClause:
		return "uses a `[[ … ]]` test"
	case *syntax.DeclClause:
		return fmt.Sprintf("declares variables with `%s`", c.Variant.Value)
	case *syntax.LetClause:
		return "uses `let`"
	case *syntax.TimeClause:
		return "uses `time`"
	case *syntax.CoprocClause:
		return "starts a coprocess"
	}
	return fmt.Sprintf("uses an unsupported shell construct (%T)", cmd)
}

// call checks a simple command run from cwd and returns the working
// directories it may leave behind when it succeeds.
func (r *run) call(cmd *syntax.CallExpr, cwd string) ([]string, string) {
	var argv []field
	for _, w := range cmd.Args {
		fs, reason := r.expandWord(w, cwd)
		if reason != "" {
			return nil, reason
		}
		argv = append(argv, fs...)
	}
	if len(argv) == 0 {
		return nil, "empty command"
	}
	if argv[0].s == "cd" && !argv[0].glob {
		return r.cd(argv, cwd)
	}
	if reason := r.checkCommand(argv, cwd); reason != "" {
		return nil, reason
	}
	return []string{cwd}, ""
}

// cd allows exactly one operand naming a place inside the workspace.
// Like bash's default (cd -L), the new directory is the lexically cleaned
// path; when that fails bash tries the physical path, so both must be
// inside and both become possible working directories. (Assumes CDPATH is
// not set in the environment that runs the command.)
func (r *run) cd(argv []field, cwd string) ([]string, string) {
	ops := argv[1:]
	if len(ops) > 0 && ops[0].s == "--" {
		ops = ops[1:]
	}
	for _, op := range ops {
		switch {
		case op.glob:
			return nil, "runs `cd` with an unquoted glob"
		case op.s == "-":
			return nil, "runs `cd -`, which returns to the previous directory"
		case strings.HasPrefix(op.s, "-"):
			return nil, fmt.Sprintf("runs `cd` with the option `%s`", op.s)
		}
	}
	switch len(ops) {
	case 0:
		return nil, "runs `cd` without a directory, which goes to the home directory"
	case 1:
	default:
		return nil, "runs `cd` with more than one operand"
	}
	dir := ops[0].s
	if reason := r.checkPath(dir, cwd, modeCd); reason != "" {
		return nil, reason
	}
	logical := dir
	if !filepath.IsAbs(dir) {
		logical = filepath.Join(cwd, dir)
	}
	logical = filepath.Clean(logical)
	if reason := r.checkPath(logical, "/", modeCd); reason != "" {
		return nil, reason
	}
	out := []string{logical}
	if phys, err := resolve(joinRaw(cwd, dir)); err == nil {
		if lp, err := resolve(logical); err != nil || lp != phys {
			out = append(out, phys)
		}
	}
	return out, ""
}

// union returns a ∪ b without duplicates, keeping order.
// andOr follows the possible working directories through `X && Y` or
// `X || Y`: && runs Y after X succeeded, || after it failed. walk checks
// one statement from a set of directories; the plain and the confined
// checks share this flow.
func andOr(cmd *syntax.BinaryCmd, cwds []string, walk func(*syntax.Stmt, []string) (ok, fail []string, reason string)) (ok, fail []string, reason string) {
	xok, xfail, reason := walk(cmd.X, cwds)
	if reason != "" {
		return nil, nil, reason
	}
	from := xok
	if cmd.Op == syntax.OrStmt {
		from = xfail
	}
	yok, yfail, reason := walk(cmd.Y, from)
	if reason != "" {
		return nil, nil, reason
	}
	if cmd.Op == syntax.AndStmt {
		return yok, union(xfail, yfail), ""
	}
	return union(xok, yok), yfail, ""
}

func union(a, b []string) []string {
	out := make([]string, 0, len(a)+len(b))
	for _, l := range [][]string{a, b} {
	next:
		for _, s := range l {
			for _, o := range out {
				if o == s {
					continue next
				}
			}
			out = append(out, s)
		}
	}
	return out
}
