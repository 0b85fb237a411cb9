package project

import "strings"

// Expand replaces ${NAME} with the variable's value and ${NAME:-default}
// with the value or, when the variable is not set, default — the two
// forms Claude Code expands in .mcp.json. A variable that is set to ""
// counts as set. $NAME without braces is left alone. The names of
// variables that are not set and have no default are returned; their
// reference is kept as written.
func Expand(s string, lookup func(string) (string, bool)) (string, []string) {
	if !strings.Contains(s, "${") {
		return s, nil
	}
	var b strings.Builder
	var missing []string
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i+2:], '}')
		if j <= 0 { // no closing brace, or ${}: literal
			if j < 0 {
				break
			}
			b.WriteString(s[:i+3])
			s = s[i+3:]
			continue
		}
		b.WriteString(s[:i])
		ref := s[i+2 : i+2+j]
		name, def, hasDef := strings.Cut(ref, ":-")
		if v, ok := lookup(name); ok {
			b.WriteString(v)
		} else if hasDef {
			b.WriteString(def)
		} else {
			missing = append(missing, name)
			b.WriteString(s[i : i+3+j])
		}
		s = s[i+3+j:]
	}
	b.WriteString(s)
	return b.String(), missing
}
