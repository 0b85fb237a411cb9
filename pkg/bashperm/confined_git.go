package bashperm

import (
	"fmt"
	"strings"

	"github.com/magenta-nvim/magenta/pkg/secrets"
)

// gitSecrets keeps the unconfined check's secret rules for git when
// confined: the sandbox masks secret files, but not git's object store,
// so `git show HEAD:.env`, `git log -p` or `git cat-file -p <blob>` in a
// repository that once committed a secret would print it, nor git's
// configuration, whose credentials `git config --list` or `git remote -v`
// would print. An operand naming a secret asks; in a repository that
// tracks or tracked a secret, a command asks unless gitexpose.go knows it
// shows nothing of it (or only paths that cover none); a command that
// prints configuration asks when that holds a credential (gitcreds.go).
// A subcommand, -C directory or pathspec known only at run time counts
// as the worst case.
func (k *confined) gitSecrets(argv []cword) string {
	for _, a := range argv[1:] {
		if !a.known {
			continue
		}
		parts := strings.FieldsFunc(a.s, func(r rune) bool { return strings.ContainsRune("/:()", r) })
		if name := secrets.In(parts); name != "" {
			return fmt.Sprintf("passes %s to git, which names a secret file (%s)", a.s, name)
		}
	}
	dir, dirKnown, otherRepo := ".", true, ""
	i := 1
	for ; i < len(argv) && (!argv[i].known || strings.HasPrefix(argv[i].s, "-")); i++ {
		a := argv[i]
		name, _, hasValue := strings.Cut(a.s, "=")
		switch {
		case !a.known:
			dirKnown = false // could be -C, or the subcommand
		case a.s == "-C" && i+1 < len(argv):
			i++
			if dirKnown = argv[i].known; dirKnown {
				dir = joinRaw(dir, argv[i].s)
			}
		case name == "--git-dir":
			otherRepo = name
			if !hasValue {
				i++
			}
		case a.s == "-c" || a.s == "--work-tree" || a.s == "--namespace" || a.s == "--config-env":
			i++
		}
	}
	if !dirKnown {
		return "runs git with words before its subcommand known only at run time, so what it prints cannot be checked for secrets"
	}
	i = min(i, len(argv)) // a value-taking option at the end (git -c)
	fields := []field{{s: "git"}}
	for _, a := range argv[i:] {
		fields = append(fields, field{s: a.s, glob: !a.known})
	}
	x := gitExposure(fields)
	_, readsConfig := gitConfigRead(fields)
	if x.level == exposeNothing && !readsConfig {
		return ""
	}
	if otherRepo != "" {
		return fmt.Sprintf("runs git with %s, so the repository whose history or configuration it prints cannot be checked for secrets", otherRepo)
	}
	r := &run{c: k.c, ws: k.ws, home: k.env.Home}
	for _, cwd := range k.cwds {
		gitCwd := joinRaw(cwd, dir)
		if readsConfig {
			phys, err := resolve(gitCwd)
			if err != nil {
				return fmt.Sprintf("cannot resolve %s to find the git configuration it reads (%v)", gitCwd, err)
			}
			repo, err := discoverGit(phys)
			if err != nil {
				return fmt.Sprintf("cannot find the git configuration it reads: %v", err)
			}
			if reason := r.gitCredentialReason(repo, fields, gitCwd); reason != "" {
				return reason
			}
		}
		if x.level == exposeNothing {
			continue
		}
		repo, reason := r.checkGitRepo(gitCwd)
		if reason != "" {
			return reason
		}
		if reason := r.gitHistoryReason(repo, x, gitCwd); reason != "" {
			return reason
		}
	}
	return ""
}
