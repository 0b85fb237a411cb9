// Package bashperm decides whether a shell command proposed by the model may
// run without asking the user ("allow") or must wait for approval ("ask").
// It is pure logic: no UI, no execution. The verdicts assume the command is
// run exactly as checked with `bash --noprofile --norc -c COMMAND`, with
// CDPATH unset (a set CDPATH can send `cd src` elsewhere).
//
// # Fail closed
//
// Whatever the checker cannot prove safe asks. Check parses the command with
// mvdan.cc/sh/v3/syntax in bash mode (a parse error asks) and walks the AST.
// Only simple commands (CallExpr) joined by &&, ||, ;, newlines, | and |&
// are accepted. Everything else asks, with a reason naming it: subshells,
// brace groups, functions, if/case/loops, [[ ]], (( )), let, declarations
// (export, local, declare), time, coproc, negation with !, background &,
// variable assignments including `VAR=x cmd` prefixes.
//
// Every word must be literal after quote removal. Single quotes, double
// quotes without expansions and backslash escapes are fine, and the argv
// that is checked is the one bash passes (`--ext\-diff` is --ext-diff).
// Parameter expansion, command and process substitution, arithmetic,
// ANSI-C $'…' and locale $"…" quoting, extended globs, brace expansion (an
// unquoted {…} holding an unquoted , or ..), bracket globs [..] and any
// tilde that bash would expand (at the start of a word, or after an
// unquoted = or :) ask. Env.Home is not needed for that: ~ always asks.
//
// # Globs
//
// An unquoted * or ? is expanded by the checker itself against the real
// directory, the way bash does by default: no dotglob (a leading dot must be
// matched literally; "." and ".." are then included, as older bash does),
// no nullglob (no match passes the pattern itself), more than 1000 matches
// asks. Every match is then checked like any other argument, so a glob
// reaching outside the workspace or a secret asks. Any match that starts
// with "-" asks, whatever the command. For programs with flags that run code
// or write files (find, rg, git, and user rules with DenyFlags) any unquoted
// glob asks, because a file planted later could be named like such a flag.
// A glob whose match would sit where it is not checked (the command name, a
// subcommand, grep's pattern, a flag's value) asks, because bash's match
// order decides the position. A glob anywhere in a command line that also
// runs a program that can create files (a write-paths or user "any" rule)
// asks: that program could create the match between check and run.
//
// # Paths
//
// Path operands (by the rule's Args kind), PathFlags values, cd targets and
// < sources are resolved from the effective working directory the way the
// kernel does: symlinks are followed and ".." applies to the resolved parent
// (link-to-etc/../x is /x). A missing tail is fine. The result must be the
// workspace root (also resolved) or below it, and not under /proc, /sys or
// /dev. Secrets ask wherever they appear in the path as written or as
// resolved below the workspace (case-insensitively): .env*, *.pem, *.key,
// id_rsa*, .netrc, .npmrc, .git-credentials, credentials, and .ssh, .aws,
// .gnupg with anything under them. Write paths also refuse .git/. The
// starting directory itself must pass the same read check.
//
// # cd
//
// cd with exactly one operand inside the workspace is allowed, and moves the
// working directory that later commands are checked from. The checker keeps
// the set of directories a command may run in: after `a && b`, b runs where
// a succeeded; after `a || b`, where a failed (a failed cd stays put); after
// `;` or a newline, either; each side of a pipe runs in a subshell and moves
// nothing. Like bash's cd -L, the target is the lexically cleaned path, and
// since bash falls back to the physical path when that fails, both must be
// inside and both become possible. So `cd src && cat ../README.md` is
// allowed, `cd .. && ls` and `cd src; cat ../../x` ask. cd with no operand,
// -, an option or a glob asks. cd cannot be given a rule.
//
// # Redirections
//
// Allowed: >, >>, >|, &> and &>> to the literal /dev/null; >&N fd
// duplication to a digit (2>&1, >&2); < from an allowed read path or
// /dev/null. Here-documents, here-strings, <>, <&, >&file and {var}> ask.
//
// # Rules
//
// The default rules are the permission corpus's (testdata/bash-permissions.tsv
// and its README): ls, cat, head, tail, wc, grep, rg (without --pre, -z,
// --search-zip), echo, pwd, which, cd, find (without -exec, -execdir, -ok,
// -okdir, -delete, -fprint*, -fls), and git status, log, diff, show and
// branch (listing only: operands need -l/--list), without the global options
// before the subcommand (only --no-pager, -P and a few pathspec options are
// allowed) and without --output, --ext-diff, --textconv, --no-index,
// --open-files-in-pager, --show-signature. defaults.go lists the few extra
// deny flags that keep reads inside the workspace (symlink-following
// recursion, rg --hidden) and why.
//
// A user Rule (Config, from setup() or a JSON file) names a program; a user
// rule for a program replaces all default rules for it, and several rules
// for one program are alternatives. A flag is a word starting with "-"
// before "--"; long flags match with or without =value and as unique
// prefixes (GNU getopt and git accept --ext for --ext-diff); single-dash
// letters may be joined (-zn holds -z), up to a ValueFlag letter whose value
// is the rest of the word; single-dash words listed whole (-exec) match whole,
// also as -exec=v and --exec. ValueFlags must be accurate: a flag wrongly
// listed hides the next word from the checks. Rules for wrappers (env,
// xargs, sudo, timeout…) or interpreters let the model run anything through
// them; builtins that change the shell itself (eval, exec, source, alias,
// set, shopt, hash, export, cd…) are refused by New.
//
// # Reasons
//
// An ask carries one short sentence naming what was found: "runs `rm`,
// which no rule allows", "reads /etc/passwd, outside the workspace",
// "reads link-to-etc/passwd, which resolves outside the workspace
// (/etc/passwd)", "redirects output to ~/.bashrc", "uses command
// substitution", "uses `--pre`, which the rule for `rg` does not allow
// without asking", "could not parse: …", "empty command".
//
// # Known limits
//
// Recursive searches (grep -r, rg) read every file under the searched
// directory, including secrets they do not name; only named paths are
// checked (rg skips hidden files such as .env by default). A repository's
// own config (.git/config, .gitattributes diff drivers, RIPGREP_CONFIG_PATH)
// can make "read-only" git and rg run programs: the executor should
// neutralise those through the environment.
package bashperm
