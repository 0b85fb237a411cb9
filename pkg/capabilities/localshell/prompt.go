package localshell

import "strings"

// promptEnds are the last characters of a line that asks for input:
// "Name:", "Continue?", ">", a shell's "$" or "#", "[default]", "(y/n)".
const promptEnds = ":?>$#])"

// promptWords mark a prompt wherever they stand in the line.
var promptWords = []string{"(y/n)", "[y/n]", "password"}

// looksLikePrompt reports whether the last non-blank screen line looks
// like a prompt waiting for an answer. It is the whole heuristic of
// Terminal.WaitingForInput, with the silence that must precede it.
func looksLikePrompt(screen []string) bool {
	last := ""
	for i := len(screen) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(screen[i]); l != "" {
			last = l
			break
		}
	}
	if last == "" {
		return false
	}
	if strings.ContainsAny(last[len(last)-1:], promptEnds) {
		return true
	}
	lower := strings.ToLower(last)
	for _, w := range promptWords {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}
