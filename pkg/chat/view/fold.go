package view

import (
	"fmt"
	"unicode/utf8"
)

// Limits on what one assistant text block puts in the display buffer. A
// reply can be tens of megabytes (a model pasting a log); drawing all of
// it costs the host and Neovim hundreds of megabytes and many seconds, and
// nobody reads it there. The full text stays in the conversation and is
// saved to a file the fold marker names.
const (
	// FoldAfterLines is the most lines a block shows unfolded; beyond it
	// the block shows its first FoldHeadLines and last FoldTailLines
	// around a marker.
	FoldAfterLines = 2000
	FoldHeadLines  = 1000
	FoldTailLines  = 200
	// MaxLineChars is the longest line drawn (in bytes); a longer one
	// shows its start and end around a marker.
	MaxLineChars = 4000
)

// FullText says where a folded block's whole text is: Path once it was
// saved to a file; while the reply streams (Ended false) it will be.
type FullText struct {
	Path  string
	Ended bool
}

// foldMarker says how many lines are not drawn and where the full text
// is: the file once saved, that it will be while the reply streams, or
// nothing when there is no file (nowhere to save it, or saving failed).
func foldMarker(n int, full FullText) Line {
	switch {
	case full.Path != "":
		return whole(fmt.Sprintf("[… %s folded; full text in %s]", Count(n, "line", "lines"), full.Path), HlMeta)
	case !full.Ended:
		return whole(fmt.Sprintf("[… %s folded; the full text is saved to a file when the reply ends]", Count(n, "line", "lines")), HlMeta)
	default:
		return whole(fmt.Sprintf("[… %s folded]", Count(n, "line", "lines")), HlMeta)
	}
}

// Folded reports whether a block of lines (plus the line being streamed)
// is drawn folded, so the caller knows to save its full text.
func Folded(lines []string, last string) bool {
	if len(lines) > FoldAfterLines || len(last) > MaxLineChars {
		return true
	}
	for _, l := range lines {
		if len(l) > MaxLineChars {
			return true
		}
	}
	return false
}

// cutLine shortens a line longer than MaxLineChars to its start and end
// around a marker, cutting on UTF-8 boundaries.
func cutLine(s string) string {
	if len(s) <= MaxLineChars {
		return s
	}
	head, tail := runeStart(s, MaxLineChars*3/4), runeStart(s, len(s)-MaxLineChars/4)
	return fmt.Sprintf("%s [… %s folded] %s", s[:head], Count(tail-head, "byte", "bytes"), s[tail:])
}

// runeStart moves i back to the start of the rune it falls in.
func runeStart(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}
