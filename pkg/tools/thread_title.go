package tools

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
	"unicode/utf8"
)

// ThreadTitleMaxRunes caps a title; longer ones are cut with an ellipsis.
const ThreadTitleMaxRunes = 80

//go:embed thread_title.md
var threadTitleDescription string

// ThreadTitleParams is the input of thread_title.
type ThreadTitleParams struct {
	Title string `json:"title" jsonschema:"the new title of the thread"`
}

// ThreadTitle returns the thread_title tool.
func ThreadTitle() Tool {
	return MustTyped("thread_title", threadTitleDescription,
		struct{ MaxRunes int }{ThreadTitleMaxRunes},
		func(_ context.Context, call Call, p ThreadTitleParams) Result {
			title := CleanTitle(p.Title)
			if title == "" {
				return Errorf("title must not be empty")
			}
			if call.Thread == nil {
				return Errorf("thread_title: no thread to rename")
			}
			call.Thread.SetTitle(title)
			return Result{Text: fmt.Sprintf("Thread title set to %q.", title), Summary: title}
		})
}

// CleanTitle folds white space and control characters to single spaces
// and caps the length at ThreadTitleMaxRunes.
func CleanTitle(s string) string {
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return r == ' ' || r < 0x20 || r == 0x7f || r == utf8.RuneError
	}), " ")
	if utf8.RuneCountInString(s) > ThreadTitleMaxRunes {
		r := []rune(s)
		s = strings.TrimSpace(string(r[:ThreadTitleMaxRunes-1])) + "…"
	}
	return s
}
