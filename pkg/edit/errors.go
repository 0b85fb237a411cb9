package edit

import (
	"fmt"
	"strconv"
	"strings"
)

// NoMatchError reports that old_string was not found in the file.
type NoMatchError struct {
	Candidates []Candidate // nearest regions, best first, at most 3

	wsOnly []bool // wsOnly[i]: Candidates[i] differs from old_string only in whitespace
}

// AmbiguousError reports that old_string occurs more than once and
// replace_all was not set.
type AmbiguousError struct {
	Lines []int // 1-based start line of each occurrence (overlapping ones included)
}

const (
	maxShownLines  = 6   // candidate lines shown per candidate in Error()
	maxShownRunes  = 160 // runes shown per candidate line
	maxListedLines = 10  // occurrence lines listed by AmbiguousError.Error()
)

func (e *NoMatchError) Error() string {
	var b strings.Builder
	b.WriteString("old_string was not found in the file")
	if len(e.Candidates) == 0 {
		b.WriteString(" and no similar region was found; read the file again and copy old_string exactly, including whitespace and indentation")
		return b.String()
	}
	lines := make([]string, len(e.Candidates))
	for i, c := range e.Candidates {
		lines[i] = strconv.Itoa(c.Line)
	}
	if len(lines) == 1 {
		fmt.Fprintf(&b, "; the closest match is at line %s:\n", lines[0])
	} else {
		fmt.Fprintf(&b, "; the closest matches are at lines %s:\n", joinAnd(lines))
	}
	for i, c := range e.Candidates {
		text := strings.Split(strings.ReplaceAll(c.Text, "\r\n", "\n"), "\n")
		end := c.Line + len(text) - 1
		b.WriteString("\n")
		if end == c.Line {
			fmt.Fprintf(&b, "line %d", c.Line)
		} else {
			fmt.Fprintf(&b, "lines %d-%d", c.Line, end)
		}
		fmt.Fprintf(&b, " (similarity %.2f", c.Score)
		if i < len(e.wsOnly) && e.wsOnly[i] {
			b.WriteString("; differs only in whitespace: check tabs vs spaces, indentation and trailing spaces")
		}
		b.WriteString("):\n")
		width := len(strconv.Itoa(end))
		for j, l := range text {
			if j == maxShownLines-1 && len(text) > maxShownLines {
				fmt.Fprintf(&b, "%*s  … (%d more lines)\n", width, "", len(text)-j)
				break
			}
			if r := []rune(l); len(r) > maxShownRunes {
				l = string(r[:maxShownRunes]) + "…"
			}
			fmt.Fprintf(&b, "%*d| %s\n", width, c.Line+j, l)
		}
	}
	b.WriteString("\nCopy old_string exactly from the file (read it again if unsure).")
	return b.String()
}

func (e *AmbiguousError) Error() string {
	var items []string
	for i := 0; i < len(e.Lines); {
		j := i
		for j < len(e.Lines) && e.Lines[j] == e.Lines[i] {
			j++
		}
		if len(items) == maxListedLines {
			items = append(items, "…")
			break
		}
		item := strconv.Itoa(e.Lines[i])
		if j-i > 1 {
			item += fmt.Sprintf(" (%d times)", j-i)
		}
		items = append(items, item)
		i = j
	}
	return fmt.Sprintf("old_string matches %d places (lines %s); add surrounding lines to make it unique, or set replace_all",
		len(e.Lines), strings.Join(items, ", "))
}

// joinAnd joins ["1"] as "1", ["1","2"] as "1 and 2", ["1","2","3"] as
// "1, 2 and 3".
func joinAnd(items []string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
