// Package bashperm decides whether a shell command proposed by the model may
// run without asking the user ("allow"), may run without asking but only
// inside the OS sandbox ("sandbox", see Confined verdicts), or must wait
// for approval ("ask"). It is pure logic: no UI, no execution. The verdicts assume the command is
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
// resolved below the workspace (case-insensitively), by pkg/secrets' one
// list (.env*, private keys, key stores, credential files, shell
// histories, .ssh/…, and their backups: server.key~, .id_rsa.swp). A read
// of a git config file (a .git directory's config, .gitconfig,
// .gitmodules…) or of a .git directory asks like a secret when the
// config holds a credential (gitcreds.go: a token in a remote URL,
// sendemail.smtpPass, an http.extraHeader). Write paths also refuse
// .git/. The starting directory itself must pass the same read check.
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
// recursion, rg --hidden) and why. defaults_read.go adds read-only tools
// (stat, file, du, tree, diff, sort, uniq, cut, jq, xxd, date, go
// version/env/list, git blame, stash list, config --get …) with their
// writing or program-running forms denied; sed.go reads sed scripts and
// allows only commands that print or edit the stream (no w, W, r, R, e,
// s///w, s///e, -i, -f).
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
// # Recursive readers
//
// grep -r (also --recursive, -d), rg and diff -r read every file below a
// directory operand ("." when rg or grep -r names none; diff without -r
// reads one level), so the check
// walks those trees (walk.go: directories listed unsorted, symlinks not
// followed except by diff -r, whose link targets are checked as paths,
// .git not entered) and asks when a file the reader would open is a
// secret. rg skips hidden names unless a --glob, a --type, an
// --ignore-file or a "!" line in an ignore file met in the walk could
// bring them back; positive --glob/--iglob and grep --include globs limit
// the files read to their base-name matches (a glob with a slash or a
// brace counts as matching everything). Like rg, the walk skips what
// .ignore, .rgignore and (inside a git repository) .gitignore files name
// with base-name patterns (node_modules/, /build, *.key); other patterns
// are not applied, and below an ignore file with a "!" line nothing is
// skipped, so the walk reads at least what rg reads. A directory is a git
// repository exactly when rg takes it for one: its .git exists after
// following symlinks (a directory, a file, a link to either; a dangling
// link is none, whatever git makes of it). A .gitignore counts when such
// a directory is at or above it (or with --no-require-git), and not
// inside a nested repository below it (rg stops there); a .git that is
// there but that rg does not see stops the files above without starting
// a repository. Ignore files above the searched directory and
// .git/info/exclude are not applied, but a "!" line in any of them also
// stops all skipping and counts as whitelisting hidden names. More than
// 20 000 entries asks. TestRgWalkAgreesWithRg pins these cases against
// the real rg. A reader that does not skip hidden names (grep -r, rg
// with a glob) also opens .git/config, .gitmodules and a bare
// repository's config: one holding a credential (gitcreds.go) asks. TestAllowedReadersNeverPrintSecrets runs every allowed
// reader for real and checks that no secret reaches the output. The walk of 20 000 entries takes about 15 ms
// (BenchmarkCheckWalk20000); a command that walks nothing, tens of
// microseconds (BenchmarkCheckTypicalPipeline).
//
// # Git repositories
//
// An allowed git command is checked against the repository git would use
// from its working directory (gitrepo.go), found as git finds it: a .git
// directory that looks like a repository, a .git file ("gitdir: …"), or
// a bare repository, walking up from the working directory. It asks when
// the work tree or the git directory (symlinks resolved) is outside the
// workspace — a repository above the workspace, a planted .git file,
// core.worktree elsewhere — except for a linked worktree (`git worktree
// add`) whose git directory points back at this .git file. It then parses
// the repository's own config files (the common directory's config and
// config.worktree; gitconfig.go follows git's syntax and asks on anything
// it cannot read) and asks when a key there can run a program or pull in
// another file: include.*, includeIf.*, filter.*.clean/smudge/process,
// diff.*.textconv/command, diff.external, *.program, core.fsmonitor,
// core.pager, pager.*, alias.*, *.helper,
// merge.*.driver… The user's global and system config are theirs and
// trusted (git-lfs filters, commit signing); only repository files, which
// whoever wrote the workspace could have planted, are read. The shell
// also forces log.showSignature=false, core.fsmonitor=false and
// core.hooksPath=/dev/null (see localshell; so a repository's own
// core.hooksPath, which Husky writes, does not ask), but external diff, textconv and filter
// drivers have no harmless config value, hence this check. It costs about
// 0.1 ms per git command (BenchmarkGitRepoCheck).
//
// Git reads more than that repository's config (gitnested.go): git
// status and git diff run git status inside every populated gitlink of
// the index, which obeys that nested repository's own config and
// info/attributes — a repository a confined script created and
// registered, or a submodule. The shell forces diff.ignoreSubmodules=all,
// diff.submodule=short, status.submoduleSummary=false and
// submodule.recurse=false to stop that, but a .gitmodules entry with
// `ignore = none` turns it back on for its path. So the check also
// parses, with the same rule, the configs of every nested repository at
// a gitlink of the index (read from the index file, versions 2 to 4,
// split or not, cached by the file's identity, size and mtime) or at a
// .gitmodules path, recursively (up to 64 repositories, 8 deep), every
// config and config.worktree below .git/modules, those of the other
// worktrees (worktrees/*/config.worktree) and a commondir's; a nested
// repository whose git directory is outside the workspace asks.
// --submodule=diff asks: it runs git diff inside nested repositories
// whose gitlinks may be only in history. The search adds about 25 µs to
// a git command (BenchmarkGitRepoCheck); a 100 000-entry index takes 5 ms
// to read the first time (BenchmarkIndexGitlinks100k).
//
// A secret deleted from the work tree lives on in git's object store, and
// git prints objects by many routes (git show -s <blob>, cat-file,
// archive, grep <rev>, format-patch --stdout, checkout of an old revision
// followed by a read). So in a repository that tracks or once tracked a
// secret (githistory.go), a git command asks unless gitexpose.go knows
// it cannot print or check out another revision's files: status without
// -v, log, shortlog, reflog, whatchanged and stash list with flags that
// print no contents, diff and show with name or statistics flags only,
// rev-parse, rev-list, ls-files, ls-tree, branch and tag (without a
// %(raw) format), describe, merge-base, blame of a named file, config
// reads, remote, add, commit, stash push, checkout -b, fetch… Any other
// subcommand asks. git show prints any object whatever its flags, so its
// revisions must name commits: spelled so (HEAD~1, X^{commit}, :/text),
// resolved by `git rev-parse REV^{commit}`, or REV:PATH of a name that is
// not secret. Commands that print contents (log -p, diff, show of a
// commit, status -v) also need pathspecs after "--" that cover none of
// the secret paths (a pathspec with magic or a glob covers everything;
// --follow, --full-diff, -L, --stdin and --submodule make pathspecs not
// limit and ask), and git diff's revisions must be commits too (git diff
// <blob> -- <path> prints the blob), or two REV:PATH operands covering
// no secret. The secret paths are listed from the index (git ls-files)
// and every commit reachable from a ref or a reflog entry (git log --all
// --reflog --name-only), cached per repository keyed by the size and
// mtime of HEAD, the index, packed-refs, the reflogs and every directory
// under refs/ (updating a loose ref renames a file into its directory).
// A history that cannot be listed in 5 s, or whose refs are too many to
// stamp (then nothing is cached), makes these commands ask or slow. In a
// repository without a secret in its history none of this asks.
//
// Git's configuration can hold credentials. When the files a command
// would read — the repository's config and config.worktree, ~/.gitconfig
// (Env.Home), $XDG_CONFIG_HOME/git/config, $GIT_CONFIG_GLOBAL, the system
// config, and what they include — hold one (secrets.GitConfigCredential),
// git config reads that could print it (--get of that key, --list,
// --get-regexp, get, list…), git remote -v, get-url and show, git
// ls-remote and git var -l ask ("would print credentials from …"); git
// credential always asks. A config file the parser rejects asks too.
//
// # Confined verdicts
//
// When the check above asks and Env carries a sandbox policy (Writable and
// Readable, both non-nil), confined.go checks the command again, this
// time for running confined: the sandbox is the boundary, so any program,
// any shell construct (loops, functions, substitutions, variables) and
// any write it does not name is the sandbox's business. What still asks
// is what the user should decide even so:
//
//   - a named write the policy refuses: the file operands of rm, mv,
//     touch, mkdir, tee, chmod…, sed -i and perl -i, the destination of
//     cp, ln and install, dd of=, the value of -o/--output, find
//     -fprint, and redirection targets, checked (resolved) with
//     Writable; any write to a git control path (pkg/gitctl, the list
//     the sandbox and the file guard share: inside any .git directory or
//     file in the workspace — nested repositories, submodules,
//     .git/modules/**, commondir, info/attributes,
//     worktrees/*/config.worktree — or the directory core.hooksPath
//     names, such as .husky/; a .git outside the workspace too) asks
//     whatever the policy says (git runs or obeys them later,
//     unconfined);
//   - a named read of a secret (pkg/secrets, as written or resolved), of
//     a git config file holding a credential, or of what Readable
//     refuses: every known operand and --flag=value of
//     a program is taken for a possible path (echo, printf, kill… are
//     text), a false positive costing an ask;
//   - git commands that name a secret, or that a repository tracking or
//     having tracked one makes ask (above), or that print a credential
//     from git's configuration (confined_git.go), since the sandbox
//     masks secret files but not git's object store nor its config; git
//     config writes and git remote add/set-url/…; git --git-dir with a
//     command that prints history or configuration (the repository it
//     names is not the one checked);
//   - programs in outsideReasons (privileges, daemons that act outside,
//     system changes, remote logins) and rsync to a host;
//   - Config.RequireApproval patterns (requireapproval.go), after
//     DefaultRequireApproval, whose DefaultDestructive part (with
//     destructive.go) asks for what deletes or overwrites workspace
//     files beyond undo until checkpoints can restore them: recursive
//     rm other than of build output, rm fed by find -exec or xargs, find
//     -delete, shred, truncate, rsync --delete*, git clean, reset
//     --hard, checkout of paths or -f, restore of the work tree, switch
//     -f/--discard-changes, stash drop/clear, and interpreters given
//     inline code (python -c, node -e, perl -e/-i, ruby -e, php -r, or a
//     program on stdin);
//   - a command name, a bash -c script, an eval or a cd target known only
//     at run time, which cannot be matched against these lists.
//
// Wrappers (env, timeout, nice, nohup, setsid, time, command, exec,
// stdbuf, ionice, xargs), bash/sh -c and eval with literal scripts, and
// find -exec are looked through. Paths are checked from every directory
// the command may be in: cd is followed through lists as in the
// unconfined check; inside compound commands and substitutions every cd
// widens the set for all of it. The confined check runs only after the
// unconfined one asked, so allowed commands cost nothing more.
//
// # Known limits
//
// A user rule for grep, rg or diff replaces the default one and with it
// the tree walk. The confined check sees only what the command line names:
// `make deploy` matches a "make deploy" pattern, a Makefile target that
// runs git push does not (the sandbox's network policy is what stops it);
// likewise a script file the model wrote and then runs (`python3
// cleanup.py`) can delete what `python3 -c` would have asked for, and awk
// or sed programs are not treated as inline code. rg's global gitignore
// (core.excludesFile) is not read for "!" lines.
// Objects no ref or reflog reaches (git show <sha> of a
// dropped commit) are not searched for secrets. The host's own
// environment (GIT_DIR, GIT_EXTERNAL_DIFF, GIT_CONFIG_COUNT…) is the
// user's and is not inspected, nor is a `GIT_DIR=… git` assignment in a
// confined command. A config file included under another name
// (~/.gitconfig.local) is checked when git would read it, but a direct
// read of it is not; recursive readers (grep -r .) check the git
// configs they open (.git/config and config.worktree, .gitmodules, a
// gitconfig, a bare repository's config) but not the rest of a .git
// directory, and a confined program reads what the sandbox lets it.
package bashperm
