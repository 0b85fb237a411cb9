package lspverify

import (
	"strings"
	"testing"

	"github.com/magenta-nvim/magenta/pkg/edit"
)

// FuzzLineMap: ParseDiff reads any text without panicking, and on the
// diffs edit.Diff makes, every line it says was kept (inside a hunk's
// context or outside every hunk) is the same text in the new file.
func FuzzLineMap(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nx\nb\nc\n")
	f.Add("-- a\n-- b\nc\n", "c\n")
	f.Add("a\nb", "a\nb\n")
	f.Add("@@ -1 +1 @@\n-a\n+b\n", "")
	f.Add("1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n3\n4\n5\n6\n7\n8\n9\n10\n")
	f.Fuzz(func(t *testing.T, before, after string) {
		for _, raw := range []string{before, after, before + after} {
			m := ParseDiff(raw)
			for old := 0; old < 50; old++ {
				if lo, hi := m.Map(old); lo < 0 || hi < lo {
					t.Fatalf("Map(%d) = %d, %d on %q", old, lo, hi, raw)
				}
			}
		}
		before = strings.ReplaceAll(before, "\r", "")
		after = strings.ReplaceAll(after, "\r", "")
		m := ParseDiff(edit.Diff("f", before, after, 2))
		oldLines, newLines := splitLines(before), splitLines(after)
		for old := range oldLines {
			if changed(m, old) {
				continue
			}
			lo, hi := m.Map(old)
			if lo != hi || lo >= len(newLines) || newLines[lo] != oldLines[old] {
				t.Fatalf("line %d (%q) mapped to %d-%d\nbefore %q\nafter %q", old, oldLines[old], lo, hi, before, after)
			}
		}
	})
}

// changed reports whether old is in a segment of changed lines.
func changed(m LineMap, old int) bool {
	for _, s := range m.segs {
		if !s.same && old >= s.oldFrom && old < s.oldTo {
			return true
		}
	}
	return false
}

// splitLines splits as edit.Diff counts lines (the final newline, or
// its absence, belongs to the last line).
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}
