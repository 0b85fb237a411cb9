package hooks

import (
	"fmt"
	"regexp"
	"strings"
)

// matcher is a compiled "matcher", read as Claude Code reads it: empty
// or "*" matches everything; letters, digits, "_" and "|" only is a name
// or a list of names matched exactly ("bash_command|edit_file");
// anything else is a regular expression searched in the name
// ("mcp__github__.*", "^get_"). Names are magenta's tool names and
// "mcp__<server>__<tool>" for MCP tools.
type matcher struct {
	all   bool
	names map[string]bool
	re    *regexp.Regexp
}

// maxMatcher bounds a matcher's length: a pattern is a few names.
const maxMatcher = 4096

func compileMatcher(s string) (matcher, error) {
	if s == "" || s == "*" {
		return matcher{all: true}, nil
	}
	if len(s) > maxMatcher {
		return matcher{}, fmt.Errorf("longer than %d bytes", maxMatcher)
	}
	if plainMatcher(s) {
		m := matcher{names: map[string]bool{}}
		for _, n := range strings.Split(s, "|") {
			if n != "" {
				m.names[n] = true
			}
		}
		return m, nil
	}
	re, err := regexp.Compile(s)
	if err != nil {
		// Claude Code reads JavaScript regular expressions; Go's RE2 has
		// no lookaround nor backreferences.
		return matcher{}, fmt.Errorf("%q is not a regular expression magenta can read (RE2 syntax: no lookaround or backreferences): %v", s, err)
	}
	return matcher{re: re}, nil
}

func plainMatcher(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '|') {
			return false
		}
	}
	return true
}

func (m matcher) matches(name string) bool {
	switch {
	case m.all:
		return true
	case m.re != nil:
		return m.re.MatchString(name)
	}
	return m.names[name]
}
