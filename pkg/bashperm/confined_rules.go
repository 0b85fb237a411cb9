package bashperm

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// outsideReasons are programs that ask even confined, and why: the sandbox
// cannot contain what they do, or takes away what they need.
var outsideReasons = func() map[string]string {
	m := map[string]string{}
	add := func(reason string, names ...string) {
		for _, n := range names {
			m[n] = reason
		}
	}
	add("needs privileges the sandbox takes away (no new privileges); the user decides",
		"sudo", "su", "doas", "pkexec", "run0", "sudoedit")
	// Their daemons run outside the sandbox and do what they are told
	// there: a container with the home mounted, a unit, a cron job, keys
	// typed into another terminal.
	add("asks a daemon to act outside the sandbox",
		"docker", "podman", "nerdctl", "kubectl", "helm", "systemctl", "service", "launchctl",
		"crontab", "at", "batch", "systemd-run", "machinectl", "loginctl", "tmux", "screen",
		"dbus-send", "busctl", "gdbus")
	// Confined they fail (no capabilities); asking says what was meant.
	add("changes the system, not the workspace",
		"mount", "umount", "chroot", "nsenter", "unshare", "pivot_root", "modprobe", "insmod",
		"rmmod", "sysctl", "reboot", "shutdown", "poweroff", "halt", "iptables", "nft", "setcap")
	add("logs in to another machine with the user's credentials",
		"ssh", "scp", "sftp", "mosh", "ssh-copy-id", "ssh-add", "telnet")
	return m
}()

// textOperands are programs whose operands are text or process ids, not
// files: `echo .env >> .gitignore` reads no secret.
var textOperands = map[string]bool{
	"echo": true, "printf": true, "yes": true, "test": true, "[": true, "true": true, "false": true,
	"kill": true, "pkill": true, "killall": true, "sleep": true, "exit": true, "return": true,
	"shift": true, "read": true, "wait": true, "type": true, "which": true, "help": true,
}

// wrapper describes a program that runs the command in its operands: its
// flags that take a value, and how many operands come before the command.
type wrapper struct {
	short, long string // value-taking flags: letters; " --name " list
	skip        int    // operands before the command (timeout's duration)
	assignments bool   // env: NAME=VALUE words come first
	moreArgs    bool   // xargs: the command gets operands the check cannot see
	refuse      string // flags (letters) the check does not follow
	lookup      string // flags (letters) with which it runs nothing
}

// Wrappers whose command the confined check follows; any other program
// that runs its operands (watch, parallel, flock…) is checked as itself.
var wrappers = map[string]wrapper{
	"env":     {short: "u", long: " --unset --split-string --chdir ", assignments: true, refuse: "SC"},
	"timeout": {short: "sk", long: " --signal --kill-after ", skip: 1},
	"nice":    {short: "n", long: " --adjustment "},
	"nohup":   {},
	"setsid":  {},
	"time":    {short: "fo", long: " --format --output "},
	"command": {lookup: "vV"},
	"exec":    {short: "a"},
	"builtin": {},
	"stdbuf":  {short: "ioe", long: " --input --output --error "},
	"ionice":  {short: "cnpPut", long: " --class --classdata --pid --pgid --uid "},
	"xargs":   {short: "adEILnPs", long: " --arg-file --delimiter --max-lines --max-args --max-procs --max-chars --process-slot-var ", moreArgs: true},
}

// Regular expressions are compiled on first use (sync.OnceValue), not
// at package init: every host start, and so the first toggle, would
// pay for them.
var assignmentRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`) })

// unwrap returns the command a wrapper runs (a suffix of argv). ok is
// false when base is no wrapper or runs nothing (`env` prints the
// environment, `command -v` looks a name up); reason is set for a flag
// the check does not follow (env -S splits a string into a command,
// env -C moves the working directory).
func unwrap(base string, argv []cword) (inner []cword, more bool, reason string, ok bool) {
	wr, found := wrappers[base]
	if !found {
		return nil, false, "", false
	}
	i := 1
	for ; i < len(argv); i++ {
		a := argv[i]
		if !a.known || a.s == "-" || !strings.HasPrefix(a.s, "-") {
			break
		}
		if a.s == "--" {
			i++
			break
		}
		if strings.HasPrefix(a.s, "--") {
			name, _, hasEq := strings.Cut(a.s, "=")
			if !hasEq && strings.Contains(wr.long, " "+name+" ") {
				i++
			}
			continue
		}
		for j := 1; j < len(a.s); j++ {
			if strings.IndexByte(wr.lookup, a.s[j]) >= 0 {
				return nil, false, "", false
			}
			if strings.IndexByte(wr.refuse, a.s[j]) >= 0 {
				return nil, false, fmt.Sprintf("runs `%s %s`, which the check does not follow", base, a.s), false
			}
			if strings.IndexByte(wr.short, a.s[j]) >= 0 {
				if j == len(a.s)-1 {
					i++
				}
				break
			}
		}
	}
	for wr.assignments && i < len(argv) && argv[i].known && assignmentRe().MatchString(argv[i].s) {
		i++
	}
	i += wr.skip
	if i >= len(argv) {
		return nil, false, "", false
	}
	return argv[i:], wr.moreArgs, "", true
}

// shellScript finds the script of `bash -c SCRIPT` (also -ec, -xc…).
// hasC is false when the shell runs a file or stdin instead; a word
// known only at run time where -c could be counts as -c.
func shellScript(argv []cword) (script cword, hasC bool) {
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		switch {
		case !a.known:
			return cword{}, hasC || i < len(argv)-1
		case a.s == "--" || a.s == "-":
			if hasC && i+1 < len(argv) {
				return argv[i+1], true
			}
			return cword{}, hasC
		case a.s == "--rcfile" || a.s == "--init-file":
			i++
		case strings.HasPrefix(a.s, "--"):
		case len(a.s) > 1 && (a.s[0] == '-' || a.s[0] == '+'):
			hasC = hasC || a.s[0] == '-' && strings.ContainsRune(a.s[1:], 'c')
			if strings.ContainsAny(a.s[1:], "oO") {
				i++ // a set or shopt option name follows
			}
		default:
			if hasC {
				return a, true
			}
			return cword{}, false
		}
	}
	return cword{}, hasC
}

// gitConfigWrite asks for git commands that change configuration:
// .git/config is read-only in the sandbox (and the global one outside
// it), and a changed remote or config key changes what later git
// commands do unconfined.
func gitConfigWrite(argv []cword) string {
	var ops []cword
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		switch {
		case !a.known || !strings.HasPrefix(a.s, "-"):
			ops = append(ops, a)
		case len(ops) == 0 && (a.s == "-C" || a.s == "-c" || a.s == "--git-dir" || a.s == "--work-tree" || a.s == "--namespace" || a.s == "--config-env"):
			i++ // a global option's value
		case len(ops) > 0 && (a.s == "--get" || a.s == "--get-all" || a.s == "--get-regexp" || a.s == "--get-urlmatch" ||
			a.s == "--list" || a.s == "-l" || a.s == "--get-color" || a.s == "--get-colorbool"):
			if ops[0].known && ops[0].s == "config" {
				return ""
			}
		}
	}
	if len(ops) < 2 || !ops[0].known {
		return ""
	}
	switch ops[0].s {
	case "config":
		if ops[1].known && (ops[1].s == "get" || ops[1].s == "list") {
			return ""
		}
		return "runs `git config`, which changes git's configuration (.git/config is read-only in the sandbox)"
	case "remote":
		switch ops[1].s {
		case "add", "set-url", "rename", "remove", "rm", "set-head", "set-branches":
			return fmt.Sprintf("runs `git remote %s`, which changes .git/config (read-only in the sandbox)", ops[1].s)
		}
	}
	return ""
}

// Programs whose operands are files they write.
var (
	writesEveryOperand = map[string]bool{
		"rm": true, "rmdir": true, "unlink": true, "shred": true, "truncate": true, "touch": true,
		"mkdir": true, "tee": true, "mv": true, "chmod": true, "chown": true, "chgrp": true,
		"mkfifo": true, "mknod": true,
	}
	writesLastOperand = map[string]bool{"cp": true, "ln": true, "install": true}
	// inPlaceEditors write their file operands with -i.
	inPlaceEditors = map[string]bool{"sed": true, "perl": true}
)

// writtenOperands are the indexes in argv of the words naming files the
// program writes: by program (above), dd's of=, and for any program the
// value of -o / --output (go build -o, gcc -o, curl -o, sort -o).
func writtenOperands(base string, argv []cword) map[int]bool {
	w := map[int]bool{}
	var ops []int
	inPlace, dashdash := false, false
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		switch {
		case dashdash || !a.known || a.s == "-" || !strings.HasPrefix(a.s, "-"):
			ops = append(ops, i)
			if base == "dd" && strings.HasPrefix(a.s, "of=") {
				w[i] = true
			}
		case a.s == "--":
			dashdash = true
		case strings.HasPrefix(a.s, "-o=") || strings.HasPrefix(a.s, "--output=") || strings.HasPrefix(a.s, "--target-directory="):
			w[i] = true
		case a.s == "-o" || a.s == "--output" || (writesLastOperand[base] && (a.s == "-t" || a.s == "--target-directory")):
			w[i+1] = true
			i++
		case a.s == "--in-place" || strings.HasPrefix(a.s, "--in-place=") ||
			!strings.HasPrefix(a.s, "--") && strings.ContainsRune(a.s, 'i'):
			inPlace = true
		}
	}
	switch {
	case writesEveryOperand[base] || inPlaceEditors[base] && inPlace:
		for _, i := range ops {
			w[i] = true
		}
	case writesLastOperand[base] && len(ops) > 0:
		w[ops[len(ops)-1]] = true
	}
	return w
}
