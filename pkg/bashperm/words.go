package bashperm

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// literal returns the word as bash would pass it after quote removal, with
// a per-byte mask of which bytes were quoted or escaped. Anything that bash
// would expand (parameters, substitutions, arithmetic, $'…', $"…", extended
// globs) yields a reason instead.
func literal(w *syntax.Word) (val []byte, quoted []bool, reason string) {
	add := func(b byte, q bool) {
		val = append(val, b)
		quoted = append(quoted, q)
	}
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			v := p.Value
			for i := 0; i < len(v); i++ {
				if v[i] == '\\' && i+1 < len(v) {
					i++
					add(v[i], true)
					continue
				}
				add(v[i], v[i] == '\\')
			}
		case *syntax.SglQuoted:
			if p.Dollar {
				return nil, nil, "uses ANSI-C quoting `$'…'`"
			}
			for i := 0; i < len(p.Value); i++ {
				add(p.Value[i], true)
			}
		case *syntax.DblQuoted:
			if p.Dollar {
				return nil, nil, "uses locale quoting `$\"…\"`"
			}
			for _, inner := range p.Parts {
				lit, ok := inner.(*syntax.Lit)
				if !ok {
					return nil, nil, partReason(inner)
				}
				v := lit.Value
				for i := 0; i < len(v); i++ {
					if v[i] == '\\' && i+1 < len(v) && strings.IndexByte("$`\"\\\n", v[i+1]) >= 0 {
						i++
					}
					add(v[i], true)
				}
			}
		default:
			return nil, nil, partReason(part)
		}
	}
	return val, quoted, ""
}

func partReason(p syntax.WordPart) string {
	switch p := p.(type) {
	case *syntax.ParamExp:
		name := "…"
		if p.Param != nil {
			name = p.Param.Value
		}
		return fmt.Sprintf("expands a variable (`$%s`)", name)
	case *syntax.CmdSubst:
		return "uses command substitution"
	case *syntax.ProcSubst:
		return "uses process substitution"
	case *syntax.ArithmExp:
		return "uses arithmetic expansion"
	case *syntax.ExtGlob:
		return "uses an extended glob pattern"
	case *syntax.BraceExp:
		return "uses brace expansion"
	}
	return fmt.Sprintf("uses an unsupported word part (%T)", p)
}

// expandWord turns one word into the fields bash would pass, or a reason.
func (r *run) expandWord(w *syntax.Word, cwd string) ([]field, string) {
	val, quoted, reason := literal(w)
	if reason != "" {
		return nil, reason
	}
	unq := func(i int) bool { return !quoted[i] }
	hasGlob := false
	for i, b := range val {
		if !unq(i) {
			continue
		}
		switch b {
		case '~':
			if i == 0 || (unq(i-1) && (val[i-1] == '=' || val[i-1] == ':')) {
				return nil, fmt.Sprintf("uses `~` (home directory expansion) in `%s`", val)
			}
		case '*', '?':
			hasGlob = true
		case '[':
			for j := i + 1; j < len(val); j++ {
				if val[j] == ']' && unq(j) {
					return nil, fmt.Sprintf("uses a bracket glob pattern in `%s`", val)
				}
			}
		case '{':
			if braceExpands(val, quoted, i) {
				return nil, fmt.Sprintf("uses brace expansion in `%s`", val)
			}
		}
	}
	if !hasGlob {
		return []field{{s: string(val)}}, ""
	}
	r.sawGlob = true
	matches, reason := glob(cwd, val, quoted)
	if reason != "" {
		return nil, reason
	}
	if len(matches) == 0 {
		return []field{{s: string(val), glob: true}}, "" // bash passes the pattern
	}
	fs := make([]field, len(matches))
	for i, m := range matches {
		if strings.HasPrefix(m, "-") {
			return nil, fmt.Sprintf("an unquoted glob expands to %s, which looks like a flag", m)
		}
		fs[i] = field{s: m, glob: true}
	}
	return fs, ""
}

// braceExpands reports whether the unquoted '{' at open starts something
// bash may brace-expand: a later unquoted '}' with an unquoted ',' or ".."
// in between. (A superset of bash's rule; {} and HEAD@{1} stay literal.)
func braceExpands(val []byte, quoted []bool, open int) bool {
	sep := false
	for j := open + 1; j < len(val); j++ {
		if quoted[j] {
			continue
		}
		switch {
		case val[j] == ',':
			sep = true
		case val[j] == '.' && j+1 < len(val) && val[j+1] == '.' && !quoted[j+1]:
			sep = true
		case val[j] == '}' && sep:
			return true
		}
	}
	return false
}

// redirects allows only output to /dev/null, fd duplication to a digit
// (2>&1, >&2) and input from a readable workspace path.
func (r *run) redirects(rs []*syntax.Redirect, cwd string) string {
	for _, rd := range rs {
		if rd.N != nil && !isDigits(rd.N.Value) {
			return fmt.Sprintf("redirects a named file descriptor `%s`", rd.N.Value)
		}
		raw := r.text(rd.Word)
		switch rd.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			return "uses a here-document"
		case syntax.WordHdoc:
			return "uses a here-string"
		case syntax.DplOut:
			if v, ok := plainWord(rd.Word); ok && isDigits(v) {
				continue
			}
			return fmt.Sprintf("redirects output to %s", raw)
		case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.RdrClob:
			if v, ok := plainWord(rd.Word); ok && v == "/dev/null" {
				continue
			}
			return fmt.Sprintf("redirects output to %s", raw)
		case syntax.RdrIn:
			fs, reason := r.expandWord(rd.Word, cwd)
			if reason != "" {
				return reason
			}
			if len(fs) != 1 || fs[0].glob {
				return fmt.Sprintf("redirects input from a glob (%s)", raw)
			}
			if fs[0].s == "/dev/null" {
				continue
			}
			if reason := r.checkPath(fs[0].s, cwd, modeRead); reason != "" {
				return reason
			}
		default:
			return fmt.Sprintf("uses the redirection `%s` %s", rd.Op, raw)
		}
	}
	return ""
}

// plainWord is the literal value of a word with no glob, tilde or brace.
func plainWord(w *syntax.Word) (string, bool) {
	if w == nil {
		return "", false
	}
	val, quoted, reason := literal(w)
	if reason != "" {
		return "", false
	}
	for i, b := range val {
		if !quoted[i] && strings.IndexByte("*?[~{", b) >= 0 {
			return "", false
		}
	}
	return string(val), true
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// text is the word's source text, for reasons.
func (r *run) text(w *syntax.Word) string {
	if w == nil {
		return ""
	}
	start, end := int(w.Pos().Offset()), int(w.End().Offset())
	if start < 0 || end > len(r.src) || start > end {
		return "(unknown)"
	}
	return r.src[start:end]
}
