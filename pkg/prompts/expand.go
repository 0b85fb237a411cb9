package prompts

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"
)

// Call splits a message typed as "/name args": ok when text starts with
// "/" and a name that ends at white space or the end of the text
// ("/usr/bin is…" names nothing: its name ends at "/"). Whether a
// command of that name exists is the caller's question.
func Call(text string) (name, args string, ok bool) {
	rest, found := strings.CutPrefix(text, "/")
	if !found {
		return "", "", false
	}
	end := strings.IndexFunc(rest, unicode.IsSpace)
	if end < 0 {
		end = len(rest)
	}
	name = rest[:end]
	if name == "" || !commandName().MatchString(name) {
		return "", "", false
	}
	return name, strings.TrimSpace(rest[end:]), true
}

// Regular expressions are compiled on first use (sync.OnceValue), not
// at package init: every host start, and so the first toggle, would
// pay for them.
var placeholders = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$ARGUMENTS|\$[1-9]`) })

// Expand is the command's prompt for args: $ARGUMENTS becomes args as
// typed, $1 to $9 its words (quotes group words: "a b" is one). When the
// body names none of them, args that are not empty are added at the end
// on a line "ARGUMENTS: args", as Claude Code does. Nothing else is
// interpreted: "!`command`" lines stay text (nothing in a command file
// runs) and @file names stay names.
func (c Command) Expand(args string) string {
	if !placeholders().MatchString(c.Body) {
		if args == "" {
			return c.Body
		}
		return strings.TrimRight(c.Body, "\n") + "\n\nARGUMENTS: " + args
	}
	words := SplitArgs(args)
	return placeholders().ReplaceAllStringFunc(c.Body, func(m string) string {
		if m == "$ARGUMENTS" {
			return args
		}
		n, _ := strconv.Atoi(m[1:])
		if n <= len(words) {
			return words[n-1]
		}
		return ""
	})
}

// SplitArgs splits args at white space; double or single quotes group
// words and are dropped.
func SplitArgs(args string) []string {
	var (
		out   []string
		cur   strings.Builder
		quote rune
		in    bool
	)
	for _, r := range args {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '"' || r == '\'':
			quote, in = r, true
		case unicode.IsSpace(r):
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}
