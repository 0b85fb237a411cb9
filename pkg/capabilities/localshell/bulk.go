package localshell

import (
	"bytes"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	uv "github.com/charmbracelet/ultraviolet"
)

// bulkMinLines is how many plain lines a read must hold beyond the
// screen's height before they bypass the emulator.
const bulkMinLines = 64

// The emulator scrolls by moving every cell of the screen up one row, so
// a command that prints many lines (seq, a build log) costs rows × cols
// cell moves per line: ~25 µs, 0.3 MB/s. A terminal's behaviour on plain
// text is simple, though: each "text\r\n" is written at column 0 of a
// fresh line, wrapped at the width, and scrolls off once `rows` more
// lines follow. feedBulk takes that shortcut for the lines of one read
// that would scroll off within the same read, when nothing on the screen
// can interfere:
//
//   - nothing in the stream so far could have changed how the emulator
//     handles plain text: no escape sequence (a scroll region, origin
//     or insert mode, auto-wrap off, another character set), no SO/SI,
//     no C1 control (see taints); the shortcut is off for the rest of
//     the command once one was seen;
//   - the main screen (the alternate one keeps no scrollback);
//   - the cursor at column 0 with the screen blank from its row down (no
//     stale text for new lines to be written over);
//   - printable ASCII lines ending in CRLF (the PTY's ONLCR), no tab,
//     escape or other control byte: one column per byte.
//
// The screen's rows above the cursor are taken first (they would scroll
// off first), the screen is blanked and the cursor put home, and the
// bypassed lines are emitted wrapped at the width as the emulator would
// have: the read's last lines then go through the emulator and leave the
// screen a terminal would show.

// bulkCount counts the reads that took the shortcut (for tests).
var bulkCount atomic.Int64

// plainLines returns the length of p's longest prefix of plain CRLF
// lines and how many lines it holds.
func plainLines(p []byte) (end, lines int) {
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c >= 0x20 && c <= 0x7e:
		case c == '\r' && i+1 < len(p) && p[i+1] == '\n':
			i++
			end, lines = i+1, lines+1
		default:
			return end, lines
		}
	}
	return end, lines
}

// feedBulk feeds p (t.mu held), bypassing the emulator for the lines
// that would only scroll through it, and appends the lines that became
// final to text. It returns false, having done nothing, when the
// shortcut does not apply.
func (t *terminal) feedBulk(p []byte, text []byte) ([]byte, []byte, bool) {
	rows, cols := t.emu.Height(), t.emu.Width()
	end, n := plainLines(p)
	if t.tainted || n < rows+bulkMinLines || t.emu.IsAltScreen() || !t.blankFromCursor() {
		return p, text, false
	}
	bulkCount.Add(1)
	// Lines 0 .. n-rows-1 of p bypass; the last rows go through.
	skip := nthLineEnd(p[:end], n-rows)
	// The screen's rows above the cursor would scroll off first: take
	// them, then blank the screen (erase below from home: unlike ED 2,
	// it pushes nothing to the scrollback).
	text = t.takeScrollback(text)
	screen := strings.Split(t.emu.String(), "\n")
	for _, row := range screen[:min(t.emu.CursorPosition().Y, len(screen))] {
		text = append(text, strings.TrimRight(row, " ")...)
		text = append(text, '\n')
	}
	_, _ = t.emu.Write([]byte("\x1b[H\x1b[J"))
	for rest := p[:skip]; len(rest) > 0; {
		i := bytes.Index(rest, crlf)
		text = appendWrapped(text, rest[:i], cols)
		rest = rest[i+2:]
	}
	return p[skip:], text, true
}

var crlf = []byte("\r\n")

// nthLineEnd returns the offset just past the k-th CRLF of p (k ≥ 1).
func nthLineEnd(p []byte, k int) int {
	off := 0
	for range k {
		off += bytes.Index(p[off:], crlf) + 2
	}
	return off
}

// appendWrapped appends line as the rows a terminal of width cols shows
// it on, each ending in '\n', trailing spaces trimmed as for the
// emulator's rows.
func appendWrapped(text, line []byte, cols int) []byte {
	for {
		row := line[:min(len(line), cols)]
		line = line[len(row):]
		text = append(text, bytes.TrimRight(row, " ")...)
		text = append(text, '\n')
		if len(line) == 0 {
			return text
		}
	}
}

// blankFromCursor reports whether the cursor is at column 0 and the
// screen is blank from its row down (t.mu held).
func (t *terminal) blankFromCursor() bool {
	pos := t.emu.CursorPosition()
	if pos.X != 0 {
		return false
	}
	for y := pos.Y; y < t.emu.Height(); y++ {
		for x := 0; x < t.emu.Width(); x++ {
			if c := t.emu.CellAt(x, y); c != nil && !c.IsZero() && !c.Equal(&uv.EmptyCell) {
				return false
			}
		}
	}
	return true
}

// taints reports whether p holds a byte that can change how the
// emulator treats plain text from then on: ESC (every escape and control
// sequence), SO or SI (character set shifts), or a C1 control (0x80–0x9F
// outside a UTF-8 sequence; a sequence cut between two reads counts too,
// which only turns the shortcut off early).
func taints(p []byte) bool {
	for i := 0; i < len(p); {
		c := p[i]
		if c < utf8.RuneSelf {
			if c == 0x1b || c == 0x0e || c == 0x0f {
				return true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(p[i:])
		if r == utf8.RuneError && size == 1 && c <= 0x9f {
			return true
		}
		i += size
	}
	return false
}
