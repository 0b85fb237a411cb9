package edit

import (
	"errors"
	"strings"
)

// ErrEmptyOldString is returned by Apply when old_string is empty.
var ErrEmptyOldString = errors.New("old_string is empty; to create a new file or replace a whole file use write_file, otherwise copy the exact text to replace into old_string")

// ErrNoChange is returned by Apply when old_string and new_string are equal.
var ErrNoChange = errors.New("old_string and new_string are the same; there is nothing to change")

// ErrLineEndingsOnly is returned by Apply when old_string and new_string
// differ only in line endings, which Apply keeps as the file has them.
var ErrLineEndingsOnly = errors.New("old_string and new_string differ only in line endings; edit_file keeps the file's line endings, so there is nothing to change")

// Apply replaces old with new in content and returns the new content and
// the number of replacements. See the package documentation for the
// matching rules. On error, updated is content unchanged and count is 0;
// the error is ErrEmptyOldString, ErrNoChange, ErrLineEndingsOnly,
// *AmbiguousError or *NoMatchError.
func Apply(content, old, new string, replaceAll bool) (updated string, count int, err error) {
	if old == "" {
		return content, 0, ErrEmptyOldString
	}
	if old == new {
		return content, 0, ErrNoChange
	}
	vs := variants(content, old, new)
	// Pass 1: the text as given, then with converted line endings.
	for _, v := range vs {
		if !strings.Contains(content, v.old) {
			continue
		}
		if v.old == v.new {
			return content, 0, ErrLineEndingsOnly
		}
		if replaceAll {
			return strings.ReplaceAll(content, v.old, v.new), strings.Count(content, v.old), nil
		}
		if lines := matchLines(content, v.old); len(lines) > 1 {
			return content, 0, &AmbiguousError{Lines: lines}
		}
		return strings.Replace(content, v.old, v.new, 1), 1, nil
	}
	// Pass 2: old ends with a newline the file's last line lacks.
	for _, v := range vs {
		if res, ok := matchAtEOF(content, v.old, v.new); ok {
			if res == content {
				return content, 0, ErrLineEndingsOnly
			}
			return res, 1, nil
		}
	}
	cands, ws := findCandidates(content, old)
	return content, 0, &NoMatchError{Candidates: cands, wsOnly: ws}
}

type variant struct{ old, new string }

// variants lists the (old, new) pairs to try, in order: as given; then, for
// a file using CRLF, both converted to CRLF; or, for a file without any CR,
// both converted to LF.
func variants(content, old, new string) []variant {
	vs := []variant{{old, new}}
	switch {
	case strings.Contains(content, "\r\n") && strings.Contains(old, "\n"):
		if o := toCRLF(old); o != old {
			vs = append(vs, variant{o, toCRLF(new)})
		}
	case !strings.Contains(content, "\r") && strings.Contains(old, "\r\n"):
		vs = append(vs, variant{toLF(old), toLF(new)})
	}
	return vs
}

func toLF(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }

func toCRLF(s string) string { return strings.ReplaceAll(toLF(s), "\n", "\r\n") }

// trimEOL removes one trailing line terminator ("\r\n" or "\n") from s and
// reports whether there was one.
func trimEOL(s string) (string, bool) {
	if t, ok := strings.CutSuffix(s, "\n"); ok {
		return strings.TrimSuffix(t, "\r"), true
	}
	return s, false
}

// matchAtEOF implements the missing-trailing-newline rule: when content
// does not end with "\n" and old does end with a line terminator, old minus
// that terminator may match the very end of content. The replacement is new
// minus one trailing terminator, so the file still has no final newline
// (new keeps any further newlines, e.g. "x\n\n" yields "x\n"). When that
// leaves an empty replacement and the match starts a line, the line break
// before it is removed as well: deleting the last line of "a\nb" gives "a",
// not "a\n".
func matchAtEOF(content, old, new string) (string, bool) {
	if strings.HasSuffix(content, "\n") {
		return "", false
	}
	body, ok := trimEOL(old)
	if !ok || body == "" || !strings.HasSuffix(content, body) {
		return "", false
	}
	prefix := content[:len(content)-len(body)]
	repl, _ := trimEOL(new)
	if repl == "" {
		if p, ok := trimEOL(prefix); ok {
			prefix = p
		}
	}
	return prefix + repl, true
}

// matchLines returns the 1-based start line of every occurrence of old in
// content, overlapping occurrences included ("aa" occurs twice in "aaa").
func matchLines(content, old string) []int {
	var lines []int
	line, counted := 1, 0
	for pos := 0; ; {
		i := strings.Index(content[pos:], old)
		if i < 0 {
			return lines
		}
		at := pos + i
		line += strings.Count(content[counted:at], "\n")
		counted = at
		lines = append(lines, line)
		pos = at + 1
		if pos > len(content) {
			return lines
		}
	}
}
