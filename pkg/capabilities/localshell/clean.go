package localshell

import (
	"bytes"
	"encoding/binary"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

const (
	// maxLine is the longest line kept, marker included.
	maxLine = capabilities.ShellMaxLineBytes
	// markerReserve bounds the length of " … [N bytes cut] … ".
	markerReserve = 42
	// cutBudget is what each side of a cut line keeps.
	cutBudget = (maxLine - markerReserve) / 2
	// rawLimit is the longest raw line buffered whole. Longer lines are
	// streamed: only rawKeep bytes at each end are kept.
	rawLimit = 4 * maxLine
	rawKeep  = rawLimit / 2
)

// plain reports whether b needs no cleaning: ASCII without control
// bytes other than tab and newline (so no ESC, CR, NUL, BEL, BS) and
// without DEL. It is the fast path for almost all output.
func plain(b []byte) bool {
	// Flags accumulate without branching (the common case is plain, so
	// stopping early buys nothing). Per byte c of a word, the high bit
	// ends up set when c >= 0x7f (c+1 carries into it: non-ASCII or
	// DEL), c < 0x09, or 0x0b <= c < 0x20. With the high bits forced on
	// (xh), subtracting never borrows across bytes, so each test is exact
	// for ASCII bytes; other bytes are flagged anyway.
	var acc uint64
	i := 0
	for ; i+16 <= len(b); i += 16 {
		acc |= controlFlags(binary.LittleEndian.Uint64(b[i:])) | controlFlags(binary.LittleEndian.Uint64(b[i+8:]))
	}
	for ; i+8 <= len(b); i += 8 {
		acc |= controlFlags(binary.LittleEndian.Uint64(b[i:]))
	}
	if acc&highWord != 0 {
		return false
	}
	for ; i < len(b); i++ {
		if c := b[i]; c >= 0x7f || (c < 0x20 && c != '\n' && c != '\t') {
			return false
		}
	}
	return true
}

// controlFlags is plain's per-word test: see there.
func controlFlags(x uint64) uint64 {
	xh := x | highWord
	return x | (x + onesWord) | ^(xh - tabWord) | (xh-vtWord)&^(xh-spaceWord)
}

// cleanLine turns one raw line (no trailing newline or CR) into its
// display form: invalid UTF-8 replaced, carriage-return redraws folded,
// ANSI sequences stripped, other control characters removed (a backspace
// takes back the rune before it, as a terminal's next character would
// overwrite it). It does not cut.
func cleanLine(raw []byte) string {
	s := string(raw)
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if strings.IndexByte(s, '\r') >= 0 {
		s = fold(s)
	} else if strings.IndexByte(s, 0x1b) >= 0 {
		s = stripANSI(s)
	}
	if hasControl(s) {
		s = dropControls(s)
	}
	return s
}

// hasControl reports a control character other than tab: C0, DEL, or C1
// (U+0080..U+009F, encoded C2 80..C2 9F).
func hasControl(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < 0x20 && c != '\t') || c == 0x7f || (c == 0xc2 && i+1 < len(s) && s[i+1] < 0xa0) {
			return true
		}
	}
	return false
}

// dropControls removes the control characters hasControl finds; a
// backspace also removes the rune before it.
func dropControls(s string) string {
	out := make([]rune, 0, len(s))
	for _, r := range s {
		switch {
		case r == '\b':
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		case (r < 0x20 && r != '\t') || (r >= 0x7f && r < 0xa0):
		default:
			out = append(out, r)
		}
	}
	return string(out)
}

// fold renders the segments of a line separated by CR the way a terminal
// leaves them: each segment overwrites the line from column 0, rune by
// rune, and the tail of a longer earlier segment stays visible. An
// erase-line sequence (CSI K, 0K, 2K) in a segment discards what earlier
// segments left; with CSI 2K only the text after it counts.
func fold(s string) string {
	var cur string
	for seg := range strings.SplitSeq(s, "\r") {
		erase := false
		if strings.IndexByte(seg, 0x1b) >= 0 {
			if i := strings.LastIndex(seg, "\x1b[2K"); i >= 0 {
				seg, erase = seg[i+4:], true
			}
			if strings.Contains(seg, "\x1b[K") || strings.Contains(seg, "\x1b[0K") {
				erase = true
			}
			seg = stripANSI(seg)
		}
		if erase {
			cur = ""
		}
		cur = overlay(cur, seg)
	}
	return cur
}

// overlay writes seg over cur from column 0, counting one column per rune.
func overlay(cur, seg string) string {
	if seg == "" {
		return cur
	}
	i := 0
	for n := utf8.RuneCountInString(seg); n > 0 && i < len(cur); n-- {
		_, size := utf8.DecodeRuneInString(cur[i:])
		i += size
	}
	return seg + cur[i:]
}

// headPart returns the longest prefix of s of at most n bytes that ends
// on a rune boundary.
func headPart(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// tailPart returns the longest suffix of s of at most n bytes that starts
// on a rune boundary.
func tailPart(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := len(s) - n
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return s[i:]
}

// cutMarker builds the text that replaces the middle of a long line.
func cutMarker(n int64) string {
	return " … [" + strconv.FormatInt(n, 10) + " bytes cut] … "
}

// cutMiddle keeps the two ends of a cleaned line longer than maxLine.
func cutMiddle(s string) string {
	if len(s) <= maxLine {
		return s
	}
	h, t := headPart(s, cutBudget), tailPart(s, cutBudget)
	return h + cutMarker(int64(len(s)-len(h)-len(t))) + t
}

// joinLong assembles a streamed long line from its raw ends. total is the
// raw length of the whole line; the count in the marker is the raw bytes
// left out of the middle plus what cleaning-then-cutting dropped from the
// ends (exact for plain text).
func joinLong(rawHead, rawTail []byte, total int64) string {
	// A raw end may split a rune: drop the partial rune (it is counted as cut).
	rawHead = trimPartialEnd(rawHead)
	rawTail = trimPartialStart(rawTail)
	head, tail := cleanLine(rawHead), cleanLine(rawTail)
	h, t := headPart(head, cutBudget), tailPart(tail, cutBudget)
	cut := total - int64(len(rawHead)+len(rawTail)) +
		int64(len(head)-len(h)+len(tail)-len(t))
	return h + cutMarker(cut) + t
}

func trimPartialEnd(b []byte) []byte {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			return b
		}
	}
	return b
}

func trimPartialStart(b []byte) []byte {
	for i := 0; i < len(b) && i < utf8.UTFMax; i++ {
		if utf8.RuneStart(b[i]) {
			return b[i:]
		}
	}
	return b
}

// textControl reports the control bytes that ordinary text output uses.
func textControl(c byte) bool {
	switch c {
	case '\t', '\n', '\r', '\f', '\b', '\v', 0x07, 0x1b:
		return true
	}
	return false
}

// sniff counts the bytes of b that do not look like text: control bytes
// other than the usual ones, DEL and invalid UTF-8. nul reports a NUL.
func sniff(b []byte) (bad int, nul bool) {
	if bytes.IndexByte(b, 0) >= 0 {
		return 0, true
	}
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && !textControl(c)) || c == 0x7f {
				bad++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			if !utf8.FullRune(b[i:]) {
				break // a rune split across reads
			}
			bad++
		}
		i += size
	}
	return bad, false
}
