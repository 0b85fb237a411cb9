package view

import "fmt"

// Todo is one step of a thread's todo list (the model's todo_write).
type Todo struct {
	Text string
	// Status is "pending", "in_progress" or "done".
	Status string
}

// todoMarks are the checkboxes of the statuses.
var todoMarks = map[string]string{"pending": "[ ]", "in_progress": "[>]", "done": "[x]"}

// RenderTodos draws the todo list under the header: a line saying how
// far it is, then one checkbox line per step (the one in progress
// highlighted, the done ones dimmed). Empty when there is no list.
func RenderTodos(id string, version uint64, todos []Todo) *Section {
	s := &Section{ID: id, Version: version}
	if len(todos) == 0 {
		return s
	}
	done := 0
	for _, t := range todos {
		if t.Status == "done" {
			done++
		}
	}
	s.Lines = append(s.Lines, whole(fmt.Sprintf("todo (%d of %d done):", done, len(todos)), HlMeta))
	for _, t := range todos {
		mark, ok := todoMarks[t.Status]
		if !ok {
			mark = "[?]"
		}
		line := Line{Text: "  " + mark + " " + oneLine(t.Text)}
		switch t.Status {
		case "in_progress":
			line.Hl = []Highlight{{0, -1, HlAssistant}}
		case "done":
			line.Hl = []Highlight{{0, -1, HlMeta}}
		}
		s.Lines = append(s.Lines, line)
	}
	s.Lines = append(s.Lines, Line{})
	return s
}
