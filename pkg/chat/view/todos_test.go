package view

import (
	"testing"

	"github.com/magenta-nvim/magenta/pkg/goldentest"
)

// The todo list under the header: how far it is, then a checkbox per
// step, the one in progress highlighted, the done ones dimmed.
func TestGoldenTodos(t *testing.T) {
	f := &Frame{Sections: []*Section{
		RenderHeader("h", 1, Header{Title: "Fix the parser", Profile: "claude", Provider: "anthropic", Model: "claude-sonnet-4-5"}),
		RenderTodos("todos", 1, []Todo{
			{Text: "read the parser", Status: "done"},
			{Text: "fix the off-by-one\nin lexer.go", Status: "in_progress"},
			{Text: "add a test", Status: "pending"},
		}),
		RenderTodos("none", 1, nil),
	}}
	goldentest.Assert(t, "testdata/todos.golden", dump(f))
}
