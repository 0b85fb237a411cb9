package bashperm

import (
	"fmt"
	"strings"

	"github.com/magenta-nvim/magenta/pkg/secrets"
)

// gitSecrets keeps the unconfined check's secret rules for git when
// confined: the sandbox masks secret files, but not git's object store,
// so `git show HEAD:.env` or `git log -p` in a repository that once
// committed a secret would print it. An operand naming a secret asks; a
// command that prints contents (githistory.go) asks when the repository
// tracks or tracked a secret, unless its pathspecs after "--" cover none.
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
	dir, dirKnown := ".", true
	i := 1
	for ; i < len(argv) && (!argv[i].known || strings.HasPrefix(argv[i].s, "-")); i++ {
		a := argv[i]
		switch {
		case !a.known:
			dirKnown = false // could be -C, or the subcommand
		case a.s == "-C" && i+1 < len(argv):
			i++
			if dirKnown = argv[i].known; dirKnown {
				dir = joinRaw(dir, argv[i].s)
			}
		case a.s == "-c" || a.s == "--git-dir" || a.s == "--work-tree" || a.s == "--namespace" || a.s == "--config-env":
			i++
		}
	}
	if !dirKnown {
		return "runs git with words before its subcommand known only at run time, so what it prints cannot be checked for secrets"
	}
	fields := []field{{s: "git"}}
	for _, a := range argv[i:] {
		fields = append(fields, field{s: a.s, glob: !a.known})
	}
	if len(fields) < 2 {
		return ""
	}
	if !argv[i].known {
		fields[1].s = "show" // the worst case: a commit's whole patch
	}
	if !gitPrintsContent(fields) {
		return ""
	}
	r := &run{c: k.c, ws: k.ws}
	for _, cwd := range k.cwds {
		gitCwd := joinRaw(cwd, dir)
		repo, reason := r.checkGitRepo(gitCwd)
		if reason != "" {
			return reason
		}
		if reason := r.gitSecretReason(repo, fields, gitCwd); reason != "" {
			return reason
		}
	}
	return ""
}
