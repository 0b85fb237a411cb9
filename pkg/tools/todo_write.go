package tools

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Bounds of a todo list (quoted in the tool's description).
const (
	TodoMaxItems = 30
	TodoMaxRunes = 200
)

// Todo statuses.
const (
	TodoPending    = "pending"
	TodoInProgress = "in_progress"
	TodoDone       = "done"
)

//go:embed todo_write.md
var todoWriteDescription string

// TodoItem is one step of a thread's todo list.
type TodoItem struct {
	Content string `json:"content" jsonschema:"what the step is, one line"`
	Status  string `json:"status" jsonschema:"pending, in_progress or done"`
}

// TodoParams is the input of todo_write: the whole list.
type TodoParams struct {
	Todos []TodoItem `json:"todos" jsonschema:"the whole todo list, in order"`
}

// TodoList is implemented by a ThreadControl whose thread shows a todo
// list (Call.Thread). Safe for concurrent use.
type TodoList interface {
	SetTodos(items []TodoItem)
}

// TodoWrite returns the todo_write tool.
func TodoWrite() Tool {
	return MustTyped("todo_write", todoWriteDescription,
		struct{ MaxItems, MaxRunes int }{TodoMaxItems, TodoMaxRunes},
		func(_ context.Context, call Call, p TodoParams) Result {
			list, ok := call.Thread.(TodoList)
			if !ok {
				return Errorf("todo_write: this thread shows no todo list")
			}
			items, err := cleanTodos(p.Todos)
			if err != nil {
				return Errorf("todo_write: " + err.Error())
			}
			list.SetTodos(items)
			return Result{Text: "Todo list updated: " + TodoCounts(items) + ".", Summary: TodoCounts(items)}
		})
}

// cleanTodos checks a list the model sent and folds each item to one
// line.
func cleanTodos(in []TodoItem) ([]TodoItem, error) {
	if len(in) > TodoMaxItems {
		return nil, fmt.Errorf("%d items; at most %d", len(in), TodoMaxItems)
	}
	out := make([]TodoItem, 0, len(in))
	inProgress := 0
	for i, it := range in {
		content := strings.Join(strings.Fields(it.Content), " ")
		if content == "" {
			return nil, fmt.Errorf("item %d has no content", i+1)
		}
		if utf8.RuneCountInString(content) > TodoMaxRunes {
			return nil, fmt.Errorf("item %d is longer than %d characters", i+1, TodoMaxRunes)
		}
		switch it.Status {
		case TodoPending, TodoDone:
		case TodoInProgress:
			inProgress++
		default:
			return nil, fmt.Errorf("item %d: status %q; use %s, %s or %s", i+1, it.Status, TodoPending, TodoInProgress, TodoDone)
		}
		out = append(out, TodoItem{Content: content, Status: it.Status})
	}
	if inProgress > 1 {
		return nil, fmt.Errorf("%d items are in_progress; work on one step at a time", inProgress)
	}
	return out, nil
}

// TodoCounts says how far a list is, e.g. "2 of 5 done, 1 in progress".
func TodoCounts(items []TodoItem) string {
	done, doing := 0, 0
	for _, it := range items {
		switch it.Status {
		case TodoDone:
			done++
		case TodoInProgress:
			doing++
		}
	}
	if len(items) == 0 {
		return "empty"
	}
	s := fmt.Sprintf("%d of %d done", done, len(items))
	if doing > 0 {
		s += ", 1 in progress"
	}
	return s
}
