package tools

import (
	"fmt"
	"sort"
	"strings"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// applyTextEdits applies a server's edits to content. Positions are
// 0-based lines (split at "\n"; a "\r" before it is not part of the
// line) and columns in enc ("utf-16", "utf-8" or "utf-32"); a column past
// a line's end means its end and a line past the last the end of the
// text, as the protocol says. Edits must not overlap; inserts at one
// place keep their order. check, when set, sees the text each edit
// replaces and its new text, and may refuse (a stale edit).
func applyTextEdits(content, enc string, edits []capabilities.TextEdit, check func(replaced, newText string) error) (string, error) {
	starts := lineStarts(content)
	type span struct {
		from, to, order int
		text            string
	}
	spans := make([]span, len(edits))
	for i, e := range edits {
		from := byteOffset(content, starts, e.StartLine, e.StartCol, enc)
		to := byteOffset(content, starts, e.EndLine, e.EndCol, enc)
		if to < from {
			return "", fmt.Errorf("an edit ends (line %d) before it starts (line %d)", e.EndLine+1, e.StartLine+1)
		}
		if check != nil {
			if err := check(content[from:to], e.NewText); err != nil {
				return "", err
			}
		}
		spans[i] = span{from, to, i, e.NewText}
	}
	sort.SliceStable(spans, func(i, j int) bool { return spans[i].from < spans[j].from })
	var b strings.Builder
	at := 0
	for i, s := range spans {
		if i > 0 && s.from < spans[i-1].to {
			return "", fmt.Errorf("two edits overlap (at byte %d)", s.from)
		}
		b.WriteString(content[at:s.from])
		b.WriteString(s.text)
		at = s.to
	}
	b.WriteString(content[at:])
	return b.String(), nil
}

// lineStarts returns the byte offset of each line's start.
func lineStarts(content string) []int {
	starts := []int{0}
	for i := 0; i < len(content); i++ {
		if content[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// byteOffset turns a line and a column in enc into a byte offset.
func byteOffset(content string, starts []int, line, col int, enc string) int {
	if line < 0 {
		return 0
	}
	if line >= len(starts) {
		return len(content)
	}
	start, end := starts[line], len(content)
	if line+1 < len(starts) {
		end = starts[line+1] - 1 // the "\n"
		if end > start && content[end-1] == '\r' {
			end--
		}
	}
	text := content[start:end]
	if enc == "utf-8" {
		return start + min(max(col, 0), len(text))
	}
	units := 0
	for i, r := range text {
		if units >= col {
			return start + i
		}
		units++
		if enc != "utf-32" && r >= 0x10000 {
			units++ // a UTF-16 surrogate pair
		}
	}
	return end
}
