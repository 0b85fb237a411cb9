package sandbox

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/magenta-nvim/magenta/pkg/secrets"
)

// blockedScanBytes bounds how much of the output Blocked reads: this
// much of the head and as much of the tail, where errors land.
const blockedScanBytes = 32 << 10

// Messages that mean the sandbox refused a path. EROFS only happens to a
// write; EACCES may be an ordinary permission problem, so Blocked checks
// the path against the policy.
const (
	msgReadOnly = "read-only file system"
	msgDenied   = "permission denied"
	msgMissing  = "no such file or directory"
)

// networkMessages, lowercased, are what curl, git, wget, Python, Go and
// bash's /dev/tcp say when there is no network. Under NetworkDeny the
// only interface is an empty loopback, so "connection refused" means the
// host's listener is out of reach, not that it is down.
var networkMessages = []string{
	"could not resolve host", "temporary failure in name resolution",
	"name or service not known", "network is unreachable", "no route to host",
	"connection refused", "couldn't connect to server", "failed to connect to",
	"unable to resolve host", "name resolution",
}

// writeVerbs mark a message about writing; shellPrefix a shell's own
// message, which is the same for `< file` and `> file`.
var (
	// Regular expressions are compiled on first use (sync.OnceValue), not
	// at package init: every host start, and so the first toggle, would
	// pay for them.
	writeVerbs = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`cannot (touch|create|remove|mkdir|make directory|move|overwrite|open .* for writing)|create directory`)
	})
	shellPrefix = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(bash|sh|dash|zsh)(: line \d+)?: `) })
)

// operation says what a message was doing to its path, as far as it
// tells: "writing", "reading", or, for a shell redirect, "access to".
func operation(lower string) string {
	switch {
	case writeVerbs().MatchString(lower):
		return "writing"
	case shellPrefix().MatchString(lower):
		return "access to"
	}
	return "reading"
}

// Blocked recognises, in a confined command's output, that the sandbox
// stopped it, and says so in a sentence for the model and the user: "the
// sandbox blocked writing /home/u/escaped.txt", "the sandbox blocked
// reading .env", "the sandbox blocked network access". A command that
// exited 0 was not blocked in any way that matters. Only the first and
// last blockedScanBytes of the output are read.
func Blocked(output []byte, exitCode int, p Policy) (what string, ok bool) {
	if exitCode == 0 {
		return "", false
	}
	for _, part := range headTail(output) {
		for line := range bytes.Lines(part) {
			if what, ok := blockedLine(strings.TrimSpace(string(line)), p); ok {
				return what, true
			}
		}
	}
	return "", false
}

// headTail returns the part of output Blocked reads.
func headTail(output []byte) [][]byte {
	if len(output) <= 2*blockedScanBytes {
		return [][]byte{output}
	}
	return [][]byte{output[:blockedScanBytes], output[len(output)-blockedScanBytes:]}
}

func blockedLine(line string, p Policy) (string, bool) {
	if msg, ok := strings.CutPrefix(line, "bwrap: "); ok {
		// bwrap itself failed to set the sandbox up; the command never ran.
		return "the sandbox could not start: " + msg, true
	}
	lower := strings.ToLower(line)
	if p.Network == NetworkDeny {
		for _, m := range networkMessages {
			if strings.Contains(lower, m) {
				return "the sandbox blocked network access", true
			}
		}
	}
	switch {
	case strings.Contains(lower, msgReadOnly):
		path := messagePath(line, strings.Index(lower, msgReadOnly), len(msgReadOnly))
		if path == "" {
			return "the sandbox blocked a write outside the workspace", true
		}
		return "the sandbox blocked writing " + path, true
	case strings.Contains(lower, msgDenied):
		path := messagePath(line, strings.Index(lower, msgDenied), len(msgDenied))
		if path == "" {
			return "", false
		}
		op := operation(lower)
		switch {
		case deniedRead(path, p):
			return "the sandbox blocked " + op + " " + path, true
		case op != "reading" && deniedWrite(path, p):
			return "the sandbox blocked writing " + path, true
		}
	case strings.Contains(lower, msgMissing):
		path := messagePath(line, strings.Index(lower, msgMissing), len(msgMissing))
		if !filepath.IsAbs(path) || p.Readable(path) || !(exists(path) || exists(filepath.Dir(path))) {
			return "", false
		}
		return "the sandbox blocked " + operation(lower) + " " + path, true
	}
	return "", false
}

// deniedRead reports whether the policy hides path. A relative path is
// judged by its name alone (the output does not say its directory).
func deniedRead(path string, p Policy) bool {
	if !filepath.IsAbs(path) {
		return secrets.InPath(path) != ""
	}
	return !p.Readable(path)
}

// deniedWrite reports whether the policy keeps writes to path from the
// host. A relative path is judged by its name: a secret, or the
// workspace's git hooks and config.
func deniedWrite(path string, p Policy) bool {
	if !filepath.IsAbs(path) {
		clean := filepath.ToSlash(filepath.Clean(path))
		return secrets.InPath(clean) != "" || clean == ".git/config" ||
			clean == ".git/hooks" || strings.HasPrefix(clean, ".git/hooks/")
	}
	return !p.Writable(path)
}

// messagePath finds the path an error message names around the error
// text at [at, at+n): Python and Node put it after ("[Errno 30]
// Read-only file system: '/x'", "EROFS: read-only file system, mkdir
// '/x'"), coreutils and shells before ("touch: cannot touch
// '/x': Read-only file system", "bash: line 1: /x: Permission denied").
func messagePath(line string, at, n int) string {
	if after := strings.TrimSpace(line[at+n:]); strings.HasPrefix(after, ":") || strings.HasPrefix(after, ",") {
		// Python ": '/x'", Node ", mkdir '/x'"
		if p := quoted(after); p != "" {
			return p
		}
	}
	before := strings.TrimSuffix(strings.TrimSpace(line[:at]), ":")
	if i := strings.LastIndex(before, ": "); i >= 0 {
		before = before[i+2:]
	}
	if q := quoted(before); q != "" {
		return q
	}
	if fields := strings.Fields(before); len(fields) > 1 {
		// "could not lock config file .git/config": the last word, if
		// it looks like a path rather than a word.
		if last := fields[len(fields)-1]; strings.Contains(last, "/") {
			return last
		}
		return ""
	}
	return before
}

// quoted returns the text inside the last '…', ‘…’ or "…" in s.
func quoted(s string) string {
	for _, q := range [][2]string{{"'", "'"}, {"‘", "’"}, {`"`, `"`}} {
		end := strings.LastIndex(s, q[1])
		if end <= 0 {
			continue
		}
		start := strings.LastIndex(s[:end], q[0])
		if start >= 0 && start+len(q[0]) < end {
			return s[start+len(q[0]) : end]
		}
	}
	return ""
}
