package bashperm

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/magenta-nvim/magenta/pkg/gitctl"
	"github.com/magenta-nvim/magenta/pkg/secrets"
	"mvdan.cc/sh/v3/syntax"
)

// The confined check (doc.go, "Confined verdicts") runs when the
// unconfined check asks and a sandbox policy is given. The sandbox is the
// boundary; this check only keeps asking for what the user should decide
// even so: what acts outside the sandbox (privileges, daemons, logins,
// RequireApproval), and explicit reads or writes the policy refuses,
// which would only fail confined.

const maxConfinedDepth = 4 // nested bash -c / eval scripts

// cword is one argument of a command as the confined check sees it:
// known is false when bash computes it at run time (an expansion, a
// glob, a brace).
type cword struct {
	s     string
	known bool
}

type confined struct {
	c     *Checker
	env   Env
	ws    string   // resolved workspace root
	cwds  []string // every directory a command may run in
	depth int
	// roots are the workspace as given (cleaned) and resolved, each with
	// the hooks directory its core.hooksPath names (gitctl.HooksPath),
	// for gitControl.
	roots [][2]string
}

// checkConfined returns "" when command may run confined without asking,
// else why it asks.
func (c *Checker) checkConfined(command string, env Env) string {
	switch {
	case strings.TrimSpace(command) == "":
		return "empty command"
	case len(command) > maxCommandLen:
		return "command is too long to check"
	case !filepath.IsAbs(env.Cwd) || !filepath.IsAbs(env.Workspace):
		return "working directory and workspace must be absolute paths"
	}
	ws, err := resolve(filepath.Clean(env.Workspace))
	if err != nil {
		return fmt.Sprintf("cannot resolve the workspace: %v", err)
	}
	k := &confined{c: c, env: env, ws: ws, cwds: []string{filepath.Clean(env.Cwd)}}
	for _, root := range union([]string{filepath.Clean(env.Workspace)}, []string{ws}) {
		hooks := gitctl.HooksPath(root)
		k.roots = append(k.roots, [2]string{root, hooks})
		if res, err := resolve(hooks); hooks != "" && err == nil && res != hooks {
			k.roots = append(k.roots, [2]string{root, res}) // .husky may be a symlink
		}
	}
	if reason := k.read(k.cwds[0], "/"); reason != "" {
		return reason
	}
	return k.script(command)
}

// script checks a whole command line. Like the unconfined check, it
// follows the working directory through cd in lists (`cd src && make >
// ../log`); inside compound commands (loops, functions, subshells…) and
// substitutions, every cd there widens the set of directories for all of
// it, in any order.
func (k *confined) script(src string) string {
	if k.depth > maxConfinedDepth {
		return "nests shell scripts too deeply to check"
	}
	p := parsers.Get().(*syntax.Parser)
	f, err := p.Parse(strings.NewReader(src), "")
	parsers.Put(p)
	if err != nil {
		return fmt.Sprintf("could not parse: %v", err)
	}
	cwds := k.cwds
	for _, s := range f.Stmts {
		ok, fail, reason := k.flow(s, cwds)
		if reason != "" {
			return reason
		}
		if cwds = union(ok, fail); len(cwds) > maxCwds {
			return "too many possible working directories to track"
		}
	}
	return ""
}

// flow checks one statement run from any of cwds and returns where it
// leaves the working directory when it succeeds and when it fails.
func (k *confined) flow(s *syntax.Stmt, cwds []string) (ok, fail []string, reason string) {
	k.cwds = cwds
	for _, rd := range s.Redirs {
		if _, reason := k.everywhere(rd, cwds); reason != "" {
			return nil, nil, reason
		}
	}
	switch cmd := s.Cmd.(type) {
	case *syntax.CallExpr:
		for _, a := range cmd.Assigns {
			if _, reason := k.everywhere(a, cwds); reason != "" {
				return nil, nil, reason
			}
		}
		for _, w := range cmd.Args {
			if _, reason := k.everywhere(w, cwds); reason != "" {
				return nil, nil, reason
			}
		}
		k.cwds = cwds
		argv := k.words(cmd.Args)
		if dirs, isCd, reason := k.cdTargets(argv); isCd {
			return dirs, cwds, reason
		}
		return cwds, cwds, k.command(argv, false)
	case *syntax.BinaryCmd:
		switch cmd.Op {
		case syntax.AndStmt, syntax.OrStmt:
			return andOr(cmd, cwds, k.flow)
		case syntax.Pipe, syntax.PipeAll:
			for _, side := range []*syntax.Stmt{cmd.X, cmd.Y} {
				if _, _, reason := k.flow(side, cwds); reason != "" {
					return nil, nil, reason
				}
			}
			return cwds, cwds, ""
		}
	case nil:
		return cwds, cwds, ""
	}
	wide, reason := k.everywhere(s.Cmd, cwds)
	return wide, wide, reason
}

// everywhere checks every command and redirection inside n, from every
// directory any cd inside n could reach (in any order), and returns
// those directories.
func (k *confined) everywhere(n syntax.Node, cwds []string) ([]string, string) {
	k.cwds = cwds
	reason := ""
	visit := func(each func(syntax.Node) string) {
		syntax.Walk(n, func(n syntax.Node) bool {
			if reason == "" {
				reason = each(n)
			}
			return reason == ""
		})
	}
	visit(func(n syntax.Node) string {
		call, ok := n.(*syntax.CallExpr)
		if !ok {
			return ""
		}
		dirs, _, reason := k.cdTargets(k.words(call.Args))
		if k.cwds = union(k.cwds, dirs); len(k.cwds) > maxCwds {
			return "too many possible working directories to track"
		}
		return reason
	})
	visit(func(n syntax.Node) string {
		switch n := n.(type) {
		case *syntax.CallExpr:
			return k.command(k.words(n.Args), false)
		case *syntax.Redirect:
			return k.redirect(n)
		}
		return ""
	})
	return k.cwds, reason
}

func (k *confined) words(ws []*syntax.Word) []cword {
	out := make([]cword, len(ws))
	for i, w := range ws {
		out[i] = k.word(w)
	}
	return out
}

// word is w after quote removal and tilde expansion (to Env.Home), or
// unknown when bash computes more of it.
func (k *confined) word(w *syntax.Word) cword {
	val, quoted, reason := literal(w)
	if reason != "" {
		return cword{}
	}
	for i, b := range val {
		if quoted[i] {
			continue
		}
		switch b {
		case '*', '?', '[':
			return cword{}
		case '{':
			if braceExpands(val, quoted, i) {
				return cword{}
			}
		case '~':
			if i > 0 && !(val[i-1] == '=' || val[i-1] == ':') {
				continue
			}
			rest := val[i+1:]
			if (len(rest) > 0 && rest[0] != '/' && rest[0] != ':') || k.env.Home == "" {
				return cword{} // ~user, or no home to name
			}
			s := string(val[:i]) + k.env.Home + string(rest)
			return cword{s: s, known: true}
		}
	}
	return cword{s: string(val), known: true}
}

// cdTargets returns where a cd or pushd in argv goes from each of
// k.cwds (isCd false: argv is another command). popd and cd - go back to
// a directory already in the set.
func (k *confined) cdTargets(argv []cword) (dirs []string, isCd bool, reason string) {
	if len(argv) == 0 || !argv[0].known || (argv[0].s != "cd" && argv[0].s != "pushd") {
		return nil, false, ""
	}
	var target []cword
	for _, a := range argv[1:] {
		if !a.known || !strings.HasPrefix(a.s, "-") || a.s == "-" {
			target = append(target, a)
		}
	}
	switch {
	case len(target) == 0:
		if k.env.Home == "" {
			return nil, true, "runs `cd` without a directory, and the home directory is unknown"
		}
		dirs = []string{k.env.Home}
	case !target[0].known:
		return nil, true, "changes directory to a place known only at run time"
	case target[0].s == "-":
		return k.cwds, true, ""
	default:
		for _, cwd := range k.cwds {
			dirs = append(dirs, filepath.Clean(joinRaw(cwd, target[0].s)))
			if phys, err := resolve(joinRaw(cwd, target[0].s)); err == nil {
				dirs = append(dirs, phys)
			}
		}
	}
	for _, d := range dirs {
		if reason := k.read(d, "/"); reason != "" {
			return nil, true, reason
		}
	}
	return union(dirs, nil), true, ""
}

// redirect checks the file a redirection reads or writes.
func (k *confined) redirect(rd *syntax.Redirect) string {
	if rd.Word == nil {
		return ""
	}
	w := k.word(rd.Word)
	if !w.known {
		return "" // the sandbox confines a target computed at run time
	}
	switch rd.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.RdrClob, syntax.RdrInOut:
		return k.writeAll(w.s)
	case syntax.DplOut:
		if isDigits(w.s) || w.s == "-" {
			return ""
		}
		return k.writeAll(w.s)
	case syntax.RdrIn:
		return k.readAll(w.s)
	}
	return ""
}

// command checks one command's argv. moreArgs: a wrapper (xargs,
// find -exec) adds operands the check cannot see.
func (k *confined) command(argv []cword, moreArgs bool) string {
	if len(argv) == 0 {
		return "" // assignments only
	}
	if !argv[0].known {
		return "runs a command whose name is known only at run time, so it cannot be checked against the commands that always ask"
	}
	name := argv[0].s
	if strings.Contains(name, "/") {
		if reason := k.readAll(name); reason != "" {
			return reason
		}
	}
	base := filepath.Base(name)
	if reason := outsideReasons[base]; reason != "" {
		return fmt.Sprintf("runs `%s`, which %s", base, reason)
	}
	inner, more, reason, ok := unwrap(base, argv)
	if reason != "" {
		return reason
	}
	if ok {
		if reason := k.operands(argv[:len(argv)-len(inner)], nil); reason != "" {
			return reason
		}
		return k.command(inner, moreArgs || more)
	}
	for i := range k.c.requireApproval {
		if ap := &k.c.requireApproval[i]; ap.matches(argv, moreArgs) {
			return ap.reason()
		}
	}
	if reason := k.destroys(base, argv, moreArgs); reason != "" {
		return reason
	}
	if reason := k.special(base, argv); reason != "" {
		return reason
	}
	return k.operands(argv, writtenOperands(base, argv))
}

// special handles programs whose arguments hold more commands (shells,
// eval, find -exec) or that write outside the sandbox whatever their
// paths say (git configuration, remote copies).
func (k *confined) special(base string, argv []cword) string {
	switch base {
	case "bash", "sh", "dash", "zsh", "ksh", "mksh", "busybox":
		script, hasC := shellScript(argv)
		if !hasC {
			return ""
		}
		if !script.known {
			return fmt.Sprintf("runs `%s -c` with a script known only at run time", base)
		}
		return k.nested(script.s)
	case "eval":
		var parts []string
		for _, a := range argv[1:] {
			if !a.known {
				return "runs `eval` on words known only at run time"
			}
			parts = append(parts, a.s)
		}
		return k.nested(strings.Join(parts, " "))
	case "find":
		return k.findExec(argv)
	case "git":
		if reason := gitConfigWrite(argv); reason != "" {
			return reason
		}
		return k.gitSecrets(argv)
	case "rsync", "scp":
		for _, a := range argv[1:] {
			if a.known && !strings.HasPrefix(a.s, "-") && isRemote(a.s) {
				return fmt.Sprintf("runs `%s` with the remote %s, which copies to or from another machine", base, a.s)
			}
		}
	}
	return ""
}

func (k *confined) nested(script string) string {
	n := &confined{c: k.c, env: k.env, ws: k.ws, cwds: append([]string(nil), k.cwds...), depth: k.depth + 1, roots: k.roots}
	return n.script(script)
}

// findExec checks the commands of find's -exec, -execdir, -ok and -okdir
// (up to ";" or "+"), and the file -fprint* and -fls write.
func (k *confined) findExec(argv []cword) string {
	for i := 1; i < len(argv); i++ {
		if !argv[i].known {
			continue
		}
		switch argv[i].s {
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(argv) && !(argv[j].known && (argv[j].s == ";" || argv[j].s == "+")) {
				j++
			}
			if reason := k.command(argv[i+1:j], true); reason != "" {
				return reason
			}
			i = j
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			if i+1 < len(argv) && argv[i+1].known {
				if reason := k.writeAll(argv[i+1].s); reason != "" {
					return reason
				}
			}
		}
	}
	return ""
}

// operands checks every known argument after the program name as a
// path it may read, except those in written (indexes into argv), which
// are checked as paths it writes. --flag=value values count too.
// Programs whose operands are text, not files, are left alone.
func (k *confined) operands(argv []cword, written map[int]bool) string {
	if len(argv) == 0 || textOperands[filepath.Base(argv[0].s)] {
		return ""
	}
	for i, a := range argv[1:] {
		if !a.known || a.s == "" {
			continue
		}
		p := a.s
		if key, v, ok := strings.Cut(p, "="); ok && filepath.Base(argv[0].s) == "dd" && !strings.Contains(key, "/") {
			p = v // if=, of=
		} else if strings.HasPrefix(p, "-") {
			_, v, ok := strings.Cut(p, "=")
			if !ok || v == "" {
				continue
			}
			p = v
		}
		check := k.readAll
		if written[i+1] {
			check = k.writeAll
		}
		if reason := check(p); reason != "" {
			return reason
		}
	}
	return ""
}

// readAll checks p, from every possible working directory, as a path
// read.
func (k *confined) readAll(p string) string {
	for _, cwd := range k.cwds {
		if reason := k.read(p, cwd); reason != "" {
			return reason
		}
	}
	return ""
}

func (k *confined) writeAll(p string) string {
	for _, cwd := range k.cwds {
		if reason := k.write(p, cwd); reason != "" {
			return reason
		}
	}
	return ""
}

func (k *confined) read(p, cwd string) string {
	res, err := resolve(joinRaw(cwd, p))
	if err != nil {
		return fmt.Sprintf("reads %s, which cannot be resolved (%v)", p, err)
	}
	if name := k.secret(p, res); name != "" {
		return fmt.Sprintf("reads %s, which is or is inside a secret file (%s)", p, name)
	}
	// The sandbox does not mask git's config, which git needs; one that
	// holds a credential is read only with the user's say.
	if reason := gitConfigFileReason(res); reason != "" {
		return fmt.Sprintf("reads %s, %s", p, reason)
	}
	if !k.env.Readable(res) {
		return fmt.Sprintf("reads %s, which the sandbox does not let commands read", p)
	}
	return ""
}

// deviceSinks are the writable devices every shell uses.
var deviceSinks = map[string]bool{"/dev/null": true, "/dev/stdout": true, "/dev/stderr": true, "/dev/tty": true}

func (k *confined) write(p, cwd string) string {
	if deviceSinks[p] || strings.HasPrefix(p, "/dev/fd/") {
		return ""
	}
	lexical := filepath.Clean(joinRaw(cwd, p))
	res, err := resolve(joinRaw(cwd, p))
	if err != nil {
		return fmt.Sprintf("writes %s, which cannot be resolved (%v)", p, err)
	}
	if name := k.secret(p, res); name != "" {
		return fmt.Sprintf("writes %s, which is or is inside a secret file (%s)", p, name)
	}
	for _, path := range []string{lexical, res} {
		if k.gitControl(path) {
			return fmt.Sprintf("writes %s, a git control path (inside a .git directory or file, or the hooks directory core.hooksPath names): git obeys it at the next git command, outside the sandbox, so the sandbox keeps it read-only", p)
		}
	}
	if !k.env.Writable(res) {
		return fmt.Sprintf("writes %s, outside what the sandbox lets commands write", p)
	}
	return ""
}

// secret names the secret in p as written or as resolved (below the
// workspace, relative to it, so the workspace's own location does not
// count).
func (k *confined) secret(p, res string) string {
	shown := p
	if rel, ok := within(k.ws, filepath.Clean(p)); ok && filepath.IsAbs(p) {
		shown = rel
	}
	if name := secrets.InPath(shown); name != "" {
		return name
	}
	if rel, ok := within(k.ws, res); ok {
		return secrets.InPath(rel)
	}
	return secrets.InPath(res)
}

// gitControl reports whether the absolute, cleaned path is a git control
// path (pkg/gitctl, the list the sandbox and the file guard share):
// inside any .git directory or file of the workspace — nested
// repositories, .git/commondir, info/attributes, modules/**,
// worktrees/*/config.worktree — or inside the hooks directory the top
// repository's core.hooksPath names (.husky/). A .git met outside the
// workspace counts too: whichever repository it belongs to, git would
// obey it unconfined. (Below the workspace only the components under it
// count: a workspace that itself lies in a .git is not all protected.)
func (k *confined) gitControl(path string) bool {
	inside := false
	for _, r := range k.roots {
		if gitctl.Protected(r[0], r[1], path) {
			return true
		}
		_, in := within(r[0], path)
		inside = inside || in
	}
	return !inside && gitctl.InParts(strings.Split(path, "/"))
}

// isRemote: an rsync or scp operand naming another machine (host:path,
// user@host:path, rsync://…), as opposed to a local path (which may
// hold a colon after a slash).
func isRemote(s string) bool {
	if strings.Contains(s, "://") {
		return true
	}
	colon := strings.IndexByte(s, ':')
	return colon > 0 && !strings.Contains(s[:colon], "/")
}
