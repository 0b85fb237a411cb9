package chat

import (
	"github.com/magenta-nvim/magenta/pkg/chat/view"
	"github.com/magenta-nvim/magenta/pkg/threadstore"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// TodosChanged: the model replaced the thread's todo list (todo_write).
type TodosChanged struct{ Items []view.Todo }

func (TodosChanged) threadEvent() {}

// msgSetTodos carries a todo_write list to the thread's goroutine.
type msgSetTodos struct{ items []view.Todo }

// todoList is the thread's todo list, drawn under the header.
type todoList struct {
	items   []view.Todo
	version int
	sec     cachedSection[int]
}

// SetTodos replaces the thread's todo list (tools.TodoList; todo_write
// calls it from its worker).
func (t *Thread) SetTodos(items []tools.TodoItem) {
	out := make([]view.Todo, len(items))
	for i, it := range items {
		out[i] = view.Todo{Text: it.Content, Status: it.Status}
	}
	t.enqueue(msgSetTodos{out})
}

var _ tools.TodoList = (*Thread)(nil)

// onSetTodos takes a new list: drawn at the next frame, and saved.
func (t *Thread) onSetTodos(items []view.Todo) {
	t.todos.items = items
	t.todos.version++
	t.dirty = true
	t.emit(TodosChanged{Items: items})
}

// todoSection is the list's section, rendered again when it changed (the
// settled prefix it belongs to is then rebuilt).
func (t *Thread) todoSection() *view.Section {
	if t.todos.sec.section == nil || t.todos.sec.value != t.todos.version {
		t.todos.sec.value = t.todos.version
		t.todos.sec.section = view.RenderTodos("todos", t.nextVersion(), t.todos.items)
		t.unsettle()
	}
	return t.todos.sec.section
}

// saveTodos records the list in the thread's log.
func (t *Thread) saveTodos(items []view.Todo) {
	if !t.openLog() {
		return
	}
	out := make([]threadstore.Todo, len(items))
	for i, it := range items {
		out[i] = threadstore.Todo{Text: it.Text, Status: it.Status}
	}
	t.saveErr(t.log.w.Todos(out))
}

// restoreTodos gives a reopened thread its saved list.
func (t *Thread) restoreTodos(saved []threadstore.Todo) {
	for _, it := range saved {
		t.todos.items = append(t.todos.items, view.Todo{Text: it.Text, Status: it.Status})
	}
}
