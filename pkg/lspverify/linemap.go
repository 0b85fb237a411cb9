package lspverify

import (
	"strconv"
	"strings"
)

// LineMap tells where a line of the text before an edit is in the text
// after it, read from the edit's unified diff (edit.Diff). Lines are
// 0-based. The zero value is the identity (no change).
type LineMap struct {
	segs []segment // in order, covering the diff's hunks
}

// segment maps old lines [oldFrom, oldTo) to new lines [newFrom, newTo):
// line for line when same, as a whole when the lines changed.
type segment struct {
	oldFrom, oldTo, newFrom, newTo int
	same                           bool
}

// ParseDiff reads the hunks of a unified diff, each as long as its
// header says (so a removed line reading "-- x" is no file header).
// Anything it cannot read ends the map there: lines past it are taken to
// be where they were, shifted by what was read (the worst is a
// diagnostic reported as both fixed and introduced, never a missed one).
func ParseDiff(diff string) LineMap {
	var m LineMap
	lines := strings.Split(diff, "\n")
	for i := 0; i < len(lines); i++ {
		h, ok := hunkHeader(lines[i])
		if !ok {
			continue
		}
		if n := len(m.segs); n > 0 && (h.oldAt < m.segs[n-1].oldTo || h.newAt < m.segs[n-1].newTo) {
			return m // hunks out of order: not a diff edit.Diff made
		}
		// A run of removed and added lines is one change; context lines
		// map one to one.
		ch := segment{oldFrom: h.oldAt, oldTo: h.oldAt, newFrom: h.newAt, newTo: h.newAt}
		flush := func() {
			if ch.oldTo > ch.oldFrom || ch.newTo > ch.newFrom {
				m.segs = append(m.segs, ch)
			}
			ch = segment{oldFrom: ch.oldTo, oldTo: ch.oldTo, newFrom: ch.newTo, newTo: ch.newTo}
		}
		oldLeft, newLeft := h.oldLen, h.newLen
		for (oldLeft > 0 || newLeft > 0) && i+1 < len(lines) {
			i++
			l := lines[i]
			if l == "" {
				l = " " // a context line whose trailing space was lost
			}
			switch l[0] {
			case ' ':
				if oldLeft == 0 || newLeft == 0 {
					flush()
					return m
				}
				flush()
				m.segs = append(m.segs, segment{oldFrom: ch.oldFrom, oldTo: ch.oldFrom + 1, newFrom: ch.newFrom, newTo: ch.newFrom + 1, same: true})
				ch = segment{oldFrom: ch.oldFrom + 1, oldTo: ch.oldFrom + 1, newFrom: ch.newFrom + 1, newTo: ch.newFrom + 1}
				oldLeft--
				newLeft--
			case '-':
				if oldLeft == 0 {
					flush()
					return m
				}
				ch.oldTo++
				oldLeft--
			case '+':
				if newLeft == 0 {
					flush()
					return m
				}
				ch.newTo++
				newLeft--
			case '\\': // "\ No newline at end of file"
			default:
				flush()
				return m
			}
		}
		flush()
		if oldLeft > 0 || newLeft > 0 {
			return m // cut short
		}
	}
	return m
}

// hunk is a hunk header's ranges, 0-based.
type hunk struct{ oldAt, oldLen, newAt, newLen int }

// hunkHeader reads "@@ -a[,b] +c[,d] @@".
func hunkHeader(l string) (hunk, bool) {
	rest, found := strings.CutPrefix(l, "@@ -")
	if !found {
		return hunk{}, false
	}
	oldR, rest, found := strings.Cut(rest, " +")
	if !found {
		return hunk{}, false
	}
	newR, _, found := strings.Cut(rest, " @@")
	if !found {
		return hunk{}, false
	}
	var h hunk
	var ok bool
	if h.oldAt, h.oldLen, ok = unifiedRange(oldR); !ok {
		return hunk{}, false
	}
	if h.newAt, h.newLen, ok = unifiedRange(newR); !ok {
		return hunk{}, false
	}
	return h, true
}

// unifiedRange reads "a[,b]": b lines from line a (1-based, length 1
// when left out). A range of length 0 names the line before it, so its
// 0-based start is a.
func unifiedRange(r string) (start, n int, ok bool) {
	startS, lenS, hasLen := strings.Cut(r, ",")
	start, err := strconv.Atoi(startS)
	if err != nil || start < 0 || start > 1<<30 {
		return 0, 0, false
	}
	n = 1
	if hasLen {
		if n, err = strconv.Atoi(lenS); err != nil || n < 0 || n > 1<<30 {
			return 0, 0, false
		}
	}
	if n == 0 {
		return start, 0, true
	}
	if start == 0 {
		return 0, 0, false
	}
	return start - 1, n, true
}

// Map returns the lines of the new text old became: one line (lo == hi)
// when it was not changed, else the span its change became — for a
// line that was only removed, the lines on either side of the gap.
func (m LineMap) Map(old int) (lo, hi int) {
	shift := 0
	for _, s := range m.segs {
		if old < s.oldFrom {
			break
		}
		if old < s.oldTo {
			if s.same {
				n := s.newFrom + old - s.oldFrom
				return n, n
			}
			if s.newTo > s.newFrom {
				return s.newFrom, s.newTo - 1
			}
			return max(s.newFrom-1, 0), s.newFrom
		}
		shift = s.newTo - s.oldTo
	}
	return old + shift, old + shift
}
