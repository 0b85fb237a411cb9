package bashperm

import (
	"fmt"
	"strings"
)

// readOnlyRuleList are default rules for read-only tools agents run all
// the time (issue 15: each of these used to ask). Each lists the flags that
// write files, run programs or read files not named as operands as
// DenyFlags, or checks its operands in an after or custom function. Value
// flags are listed only when certain: a flag wrongly listed would hide the
// next word from the path checks, a missing one only makes the checker
// treat its value as a path (stricter).
var readOnlyRuleList = []Rule{
	{Command: "stat", ValueFlags: []string{"-c", "--format", "--printf"}},
	{
		Command:    "file",
		DenyFlags:  []string{"-C", "--compile", "-m", "--magic-file", "-f", "--files-from"},
		ValueFlags: []string{"-F", "--separator", "-e", "--exclude", "-P", "--parameter", "--exclude-quiet"},
	},
	{
		Command:    "du",
		DenyFlags:  []string{"--files0-from", "-L", "--dereference"},
		ValueFlags: []string{"-d", "--max-depth", "-B", "--block-size", "-t", "--threshold", "--exclude", "--time-style"},
		PathFlags:  []string{"-X", "--exclude-from"},
	},
	{
		// -o writes the listing to a file; -R with -H writes 00Tree.html
		// files; -l follows symlinks out of the workspace; --fromfile
		// lists paths read from a file.
		Command:    "tree",
		DenyFlags:  []string{"-o", "--output", "-R", "-l", "--fromfile", "--fromtabfile"},
		ValueFlags: []string{"-L", "-P", "-I", "-H", "-T", "--charset", "--filelimit", "--timefmt", "--sort"},
		PathFlags:  []string{"--infofile", "--gitfile", "--hintro", "--houtro"},
	},
	{
		Command: "diff",
		ValueFlags: []string{"-x", "--exclude", "-I", "--ignore-matching-lines", "-S", "--starting-file",
			"--label", "-F", "--show-function-line", "-W", "--width", "--tabsize", "-C", "-U", "-D", "--ifdef",
			"--line-format", "--old-line-format", "--new-line-format", "--unchanged-line-format",
			"--old-group-format", "--new-group-format", "--changed-group-format", "--unchanged-group-format",
			"--horizon-lines", "--palette"},
		PathFlags: []string{"-X", "--exclude-from", "--from-file", "--to-file"},
	},
	// printf -v sets a shell variable: -v PATH would change which
	// program the next command runs.
	{Command: "printf", DenyFlags: []string{"-v"}, Args: "any"},
	{
		// --compress-program runs a program, -o writes, -T writes
		// temporary files elsewhere, --files0-from reads names from a file.
		Command:    "sort",
		DenyFlags:  []string{"-o", "--output", "--compress-program", "-T", "--temporary-directory", "--files0-from"},
		ValueFlags: []string{"-k", "--key", "-t", "--field-separator", "-S", "--buffer-size", "--parallel", "--batch-size"},
		PathFlags:  []string{"--random-source"},
	},
	{Command: "uniq", ValueFlags: []string{"-f", "--skip-fields", "-s", "--skip-chars", "-w", "--check-chars"}},
	{Command: "cut", ValueFlags: []string{"-b", "--bytes", "-c", "--characters", "-f", "--fields", "-d", "--delimiter", "--output-delimiter"}},
	{Command: "nl", ValueFlags: []string{"-b", "-d", "-f", "-h", "-i", "-l", "-n", "-s", "-v", "-w",
		"--body-numbering", "--section-delimiter", "--footer-numbering", "--header-numbering", "--line-increment",
		"--join-blank-lines", "--number-format", "--number-separator", "--starting-line-number", "--number-width"}},
	{Command: "rev"},
	{Command: "tac", ValueFlags: []string{"-s", "--separator"}},
	{Command: "tr", Args: "any"},
	{Command: "fold", ValueFlags: []string{"-w", "--width"}},
	{Command: "expand", ValueFlags: []string{"-t", "--tabs"}},
	{Command: "unexpand", ValueFlags: []string{"-t", "--tabs"}},
	{Command: "column", ValueFlags: []string{"-s", "--separator", "-c", "--output-width", "-o", "--output-separator", "-N", "--table-columns"}},
	{Command: "comm", ValueFlags: []string{"--output-delimiter"}},
	{Command: "join", ValueFlags: []string{"-t", "-1", "-2", "-j", "-o", "-e", "-a", "-v"}},
	{Command: "paste", ValueFlags: []string{"-d", "--delimiters"}},
	// -c reads a list of files to verify from a file.
	{Command: "md5sum", DenyFlags: []string{"-c", "--check"}},
	{Command: "sha1sum", DenyFlags: []string{"-c", "--check"}},
	{Command: "sha256sum", DenyFlags: []string{"-c", "--check"}},
	{Command: "sha512sum", DenyFlags: []string{"-c", "--check"}},
	{Command: "b2sum", DenyFlags: []string{"-c", "--check"}},
	{Command: "cksum"},
	{Command: "basename", Args: "any"},
	{Command: "dirname", Args: "any"},
	{Command: "realpath", Args: "any"},
	{Command: "seq", Args: "any"},
	{Command: "true", Args: "any"},
	{Command: "false", Args: "any"},
	{
		// -s/--set and an operand not starting with "+" set the clock; -f
		// reads dates from a file.
		Command:    "date",
		DenyFlags:  []string{"-s", "--set", "-f", "--file"},
		ValueFlags: []string{"-d", "--date", "--rfc-3339"},
		PathFlags:  []string{"-r", "--reference"},
		Args:       "any",
	},
	{Command: "uname", Args: "none"},
	{Command: "whoami", Args: "none"},
	{Command: "id", Args: "any"},
	// An operand, -F or -b sets the host name.
	{Command: "hostname", DenyFlags: []string{"-F", "--file", "-b", "--boot"}, Args: "none"},
	{Command: "go", Subcommands: []string{"version"}},
	{Command: "go", Subcommands: []string{"env"}, DenyFlags: []string{"-w", "-u"}, Args: "any"},
	{
		// Only flags that load package metadata: -export and -compiled
		// build, -toolexec and -exec run programs.
		Command: "go", Subcommands: []string{"list"}, Args: "any",
		AllowFlags: []string{"-f", "-json", "-m", "-deps", "-test", "-e", "-find", "-versions", "-retracted"},
		ValueFlags: []string{"-f"},
	},
	{Command: "type", Args: "any"},
	{Command: "test", Args: "any"},
	{Command: "xxd", ValueFlags: []string{"-c", "-cols", "-g", "-groupsize", "-l", "-len", "-o", "-offset", "-s", "-seek", "-n", "-name"}},
	{Command: "od", ValueFlags: []string{"-A", "--address-radix", "-j", "--skip-bytes", "-N", "--read-bytes", "-t", "--format", "-S"}},
	{Command: "hexdump", ValueFlags: []string{"-e", "-n", "-s"}, PathFlags: []string{"-f"}},
	{
		// -f/--from-file and -L read jq programs and modules from files,
		// --slurpfile, --rawfile and --run-tests read files named in flag
		// values, and --arg/--argjson take two values, which the scanner
		// cannot skip.
		Command: "jq", Args: "pattern-then-read-paths",
		DenyFlags:  []string{"-f", "--from-file", "-L", "--slurpfile", "--rawfile", "--arg", "--argjson", "--args", "--jsonargs", "--run-tests"},
		ValueFlags: []string{"--indent"},
	},
	{
		Command: "git", Subcommands: []string{"blame"}, Args: "any",
		DenyFlags: gitDenied,
		PathFlags: []string{"--contents", "--ignore-revs-file", "-S"},
	},
	{Command: "git", Subcommands: []string{"stash list"}, Args: "any", DenyFlags: gitDenied},
	{
		Command: "git", Subcommands: []string{"config"}, Args: "any",
		AllowFlags: []string{"--get", "--get-all", "--local", "--global", "--system", "--worktree", "--type",
			"--bool", "--int", "--bool-or-int", "--path", "--expiry-date", "-z", "--null", "--show-origin",
			"--show-scope", "--default", "--includes", "--no-includes"},
		ValueFlags: []string{"--type", "--default"},
	},
}

// readOnlyAfter are the extra operand checks of the rules above.
var readOnlyAfter = map[string]func(*scanned) string{
	"uniq": atMostOneOperand("uniq"),
	"xxd":  atMostOneOperand("xxd"),
	"jq":   jqNoEnvironment,
	"date": dateFormatOnly,
}

// dateFormatOnly: `date MMDDhhmm` sets the clock; only +FORMAT prints.
func dateFormatOnly(s *scanned) string {
	for _, a := range s.rest {
		if !strings.HasPrefix(a.s, "+") {
			return fmt.Sprintf("passes `%s` to `date`, which sets the clock", a.s)
		}
	}
	return ""
}

// atMostOneOperand: uniq and xxd write their second operand.
func atMostOneOperand(cmd string) func(*scanned) string {
	return func(s *scanned) string {
		if len(s.rest) > 1 {
			return fmt.Sprintf("passes a second operand to `%s`, which writes its output to that file", cmd)
		}
		return ""
	}
}

// jqNoEnvironment: env and $ENV print the environment, which holds API
// keys; import and include read modules from files.
func jqNoEnvironment(s *scanned) string {
	if len(s.ops) == 0 {
		return ""
	}
	l := strings.ToLower(s.ops[0].s)
	for _, w := range []string{"env", "import", "include"} {
		if strings.Contains(l, w) {
			return fmt.Sprintf("passes a jq program using `%s`, which reads the environment or other files", w)
		}
	}
	return ""
}

func bracketClosed(s *scanned) string {
	if len(s.ops) == 0 || s.ops[len(s.ops)-1].s != "]" {
		return "runs `[` without a closing `]`"
	}
	return ""
}

// gitConfigGetOnly allows reading one named key: `git config NAME` or
// `git config --get[-all] NAME [VALUE-PATTERN]`. Two operands without
// --get set a value; --list and --get-regexp are not allowed (they print
// every key, tokens in URLs included).
func gitConfigGetOnly(s *scanned) string {
	get := s.seen["--get"] || s.seen["--get-all"]
	if len(s.rest) > 0 {
		key := strings.ToLower(s.rest[0].s)
		for _, w := range []string{"url", "credential", "header", "token", "password", "secret", "auth"} {
			if strings.Contains(key, w) {
				return fmt.Sprintf("reads the git setting %s, which may hold a credential", s.rest[0].s)
			}
		}
	}
	switch {
	case len(s.rest) == 1, get && len(s.rest) == 2:
		return ""
	case len(s.rest) == 0:
		return "runs `git config` without a key name"
	}
	return "runs `git config` with a value, which changes the configuration"
}
