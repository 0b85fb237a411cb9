package chat

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

// A thread's title until the model names it: the first words of its
// first message, on one line, cut at a word boundary, mentions kept
// readable (the mention and the file's name, not its whole path).
func TestFallbackTitle(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"What is 2+2?", "What is 2+2?"},
		{"  fix\nthe   build\t please ", "fix the build please"},
		{"explain @file:pkg/chat/turn.go to me", "explain @file:turn.go to me"},
		{`read @file:"docs/my notes.txt" and @diag`, `read @file:"my notes.txt" and @diag`},
		{"Refactor the retry policy so that a failing server is reported sooner and the wording is right",
			"Refactor the retry policy so that a failing…"},
		{strings.Repeat("x", 80), strings.Repeat("x", fallbackTitleMax-1) + "…"},
		{"héllo wörld " + strings.Repeat("é", 70), "héllo wörld…"},
		{"   ", ""},
	} {
		got := fallbackTitle(c.text)
		assert.Equal(t, c.want, got, "from %q", c.text)
		assert.LessOrEqual(t, utf8.RuneCountInString(got), fallbackTitleMax, got)
		assert.True(t, utf8.ValidString(got), got)
	}
}
