package edit

import (
	"strings"

	"github.com/pmezard/go-difflib/difflib"
)

// noNewlineMarker follows a last line that has no line terminator, as in
// diff(1) and git.
const noNewlineMarker = "\\ No newline at end of file\n"

// Diff returns a compact unified diff of before → after for showing in the
// chat: a "--- path" / "+++ path" header (no timestamps) followed by
// "@@ -3,2 +3,3 @@" hunks with context lines of unchanged text around each
// change (a negative context means the conventional 3). It returns "" when
// before and after are identical.
//
// A last line without a terminating newline is followed by the usual
// "\ No newline at end of file" marker, so adding or removing the final
// newline shows up as a change. CRLF line endings are compared as they are
// but printed as LF, so the chat shows no stray carriage returns.
func Diff(path, before, after string, context int) string {
	if before == after {
		return ""
	}
	if context < 0 {
		context = 3
	}
	out, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A:        diffLines(before),
		B:        diffLines(after),
		FromFile: path,
		ToFile:   path,
		Context:  context,
	})
	if err != nil { // writing to an in-memory buffer cannot fail
		return ""
	}
	return strings.ReplaceAll(out, "\r\n", "\n")
}

// diffLines splits s into lines that keep their terminators. A last line
// without a newline gets one plus the "no newline" marker, so that every
// element prints as whole lines and differs from the same text with a
// newline.
func diffLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if last := lines[len(lines)-1]; last == "" {
		lines = lines[:len(lines)-1]
	} else {
		lines[len(lines)-1] = last + "\n" + noNewlineMarker
	}
	return lines
}
