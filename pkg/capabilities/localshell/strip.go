package localshell

import (
	"strings"

	"github.com/charmbracelet/x/ansi/parser"
)

// stripANSI removes escape sequences (CSI, OSC, DCS, APC, …, as the
// terminal parser of charmbracelet/x/ansi recognises them) and keeps
// printable text and control characters.
//
// It drives the parser package's transition table directly instead of
// calling ansi.Strip: the ansi package pulls in go-runewidth, whose init
// builds width tables for every rune and took ~29 ms of the host's start
// (measured with GODEBUG=inittrace=1), for width functions we never use.
func stripANSI(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	state := parser.GroundState
	pending := 0 // bytes still to copy of a multi-byte rune
	for i := 0; i < len(s); i++ {
		if pending > 0 {
			b.WriteByte(s[i])
			if pending--; pending == 0 {
				state = parser.GroundState
			}
			continue
		}
		next, action := parser.Table.Transition(state, s[i])
		switch action {
		case parser.CollectAction:
			if next == parser.Utf8State {
				pending = utf8Len(s[i]) - 1
				b.WriteByte(s[i])
				if pending == 0 {
					next = parser.GroundState
				}
			}
		case parser.PrintAction, parser.ExecuteAction:
			b.WriteByte(s[i])
		}
		state = next
	}
	return b.String()
}

// utf8Len is the length of the UTF-8 sequence a lead byte starts.
func utf8Len(c byte) int {
	switch {
	case c&0xE0 == 0xC0:
		return 2
	case c&0xF0 == 0xE0:
		return 3
	case c&0xF8 == 0xF0:
		return 4
	}
	return 1
}
