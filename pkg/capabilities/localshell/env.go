package localshell

import (
	"strconv"
	"strings"
)

// hardenedVars replace any inherited value: no pager, no editor, no
// credential prompt, no colours.
var hardenedVars = []string{
	"PAGER=cat",
	"GIT_PAGER=cat",
	"MANPAGER=cat",
	"GIT_EDITOR=true",
	"EDITOR=true",
	"VISUAL=true",
	"GIT_TERMINAL_PROMPT=0",
	"GIT_ASKPASS=",
	"SSH_ASKPASS=",
	"GCM_INTERACTIVE=never",
	"TERM=dumb",
	"NO_COLOR=1",
}

// removedVars are dropped from the inherited environment because they
// change what the checked command string means: files bash sources
// (BASH_ENV, ENV), where `cd` goes (CDPATH), how globs, words and options
// behave (GLOBIGNORE, IFS, SHELLOPTS, BASHOPTS), and a ripgrep config that
// can name programs to run. Exported bash functions (BASH_FUNC_*) are
// dropped too: one named `ls` would replace the command the checker saw.
var removedVars = map[string]bool{
	"BASH_ENV": true, "ENV": true, "CDPATH": true, "GLOBIGNORE": true, "IFS": true,
	"SHELLOPTS": true, "BASHOPTS": true, "RIPGREP_CONFIG_PATH": true,
}

// gitOverrides are passed as GIT_CONFIG_KEY_n / GIT_CONFIG_VALUE_n after
// any inherited entries, so they win: a repository's own config cannot
// run code through hooks, fsmonitor, a pager, an ssh command, signature
// verification (log.showSignature makes `git log` run gpg.program) or a
// credential helper.
//
// Only keys that have a harmless value can be overridden here. An empty
// diff.external is not harmless: git tries to run "" and every `git diff`
// dies with exit 128 ("cannot run"), and config has no "unset" spelling.
// External diff drivers, textconv, filters and gpg.program stay as
// configured (the user's own global setup, such as git-lfs or commit
// signing, keeps working); bashperm asks before any command runs in a
// repository whose own config names such a program (see its doc.go).
//
// The submodule keys stop git from recursing into nested repositories:
// `git status` and `git diff` otherwise run `git status` inside every
// populated gitlink, where that repository's own config and
// info/attributes (which a confined script can plant) choose filters and
// fsmonitor that run unconfined. diff.ignoreSubmodules=dirty keeps git
// out of a submodule's work tree (where those programs run) while still
// showing a submodule that points at another commit; a .gitmodules entry
// with `ignore = none` still overrides it for its path, which bashperm
// checks.
// diff.submodule=short keeps a diff from running `git diff` inside a
// submodule (the "diff" format does). submodule.recurse and the
// fetch/push keys keep fetch, pull, push, checkout and grep in the top
// repository.
var gitOverrides = [][2]string{
	{"core.fsmonitor", "false"},
	{"core.hooksPath", "/dev/null"},
	{"core.pager", "cat"},
	{"core.sshCommand", "ssh -oBatchMode=yes"},
	{"log.showSignature", "false"},
	{"credential.helper", ""},
	{"diff.ignoreSubmodules", "dirty"},
	{"diff.submodule", "short"},
	{"status.submoduleSummary", "false"},
	{"submodule.recurse", "false"},
	{"fetch.recurseSubmodules", "false"},
	{"push.recurseSubmodules", "no"},
}

// HardenedEnv returns base hardened as for the commands the shell runs
// (see hardenEnv): for git run by the host itself, such as @diff, so it
// gets the same git config overrides as a command the checker allowed.
func HardenedEnv(base []string) []string { return hardenEnv(base) }

// hardenEnv returns base with the hardened variables set. Inherited
// GIT_CONFIG_KEY_i / GIT_CONFIG_VALUE_i pairs (i < GIT_CONFIG_COUNT, key
// present) are kept and renumbered from 0; ours follow them. Stray
// GIT_CONFIG_KEY_/VALUE_ entries and GIT_CONFIG_PARAMETERS (git's
// internal `-c` channel) are dropped. GIT_CONFIG_GLOBAL and friends stay.
func hardenEnv(base []string) []string {
	replaced := make(map[string]bool, len(hardenedVars))
	for _, kv := range hardenedVars {
		k, _, _ := strings.Cut(kv, "=")
		replaced[k] = true
	}
	vals := make(map[string]string)
	count := 0
	out := make([]string, 0, len(base)+len(hardenedVars)+2*len(gitOverrides)+1)
	for _, kv := range base {
		k, v, ok := strings.Cut(kv, "=")
		switch {
		case !ok || replaced[k] || removedVars[k] || strings.HasPrefix(k, "BASH_FUNC_"):
		case k == "GIT_CONFIG_COUNT":
			if n, err := strconv.Atoi(v); err == nil && n > 0 && n < 1000 {
				count = n
			}
		case strings.HasPrefix(k, "GIT_CONFIG_KEY_"), strings.HasPrefix(k, "GIT_CONFIG_VALUE_"):
			vals[k] = v
		case k == "GIT_CONFIG_PARAMETERS":
		default:
			out = append(out, kv)
		}
	}
	out = append(out, hardenedVars...)
	n := 0
	add := func(k, v string) {
		s := strconv.Itoa(n)
		out = append(out, "GIT_CONFIG_KEY_"+s+"="+k, "GIT_CONFIG_VALUE_"+s+"="+v)
		n++
	}
	for i := range count {
		s := strconv.Itoa(i)
		if k, ok := vals["GIT_CONFIG_KEY_"+s]; ok {
			add(k, vals["GIT_CONFIG_VALUE_"+s])
		}
	}
	for _, o := range gitOverrides {
		add(o[0], o[1])
	}
	return append(out, "GIT_CONFIG_COUNT="+strconv.Itoa(n))
}
