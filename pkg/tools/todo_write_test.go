package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type todoThread struct{ items []TodoItem }

func (t *todoThread) SetTitle(string)           {}
func (t *todoThread) SetTodos(items []TodoItem) { t.items = items }

func runTodo(t *testing.T, th ThreadControl, input any) Result {
	t.Helper()
	raw, err := json.Marshal(input)
	require.NoError(t, err)
	return TodoWrite().Run(context.Background(), Call{Input: raw, Thread: th})
}

func TestTodoWriteReplacesTheList(t *testing.T) {
	th := &todoThread{}
	res := runTodo(t, th, TodoParams{Todos: []TodoItem{{"read  the\ncode", TodoDone}, {"fix it", TodoInProgress}, {"test", TodoPending}}})
	require.False(t, res.IsError, res.Text)
	assert.Equal(t, "Todo list updated: 1 of 3 done, 1 in progress.", res.Text)
	assert.Equal(t, "read the code", th.items[0].Content, "folded to one line")
	assert.Contains(t, TodoWrite().Spec().Description, "At most 30 items of at most 200 characters")
}

func TestTodoWriteRefusesBadLists(t *testing.T) {
	th := &todoThread{}
	for _, c := range []struct {
		in   TodoParams
		want string
	}{
		{TodoParams{Todos: []TodoItem{{"a", "started"}}}, `status "started"`},
		{TodoParams{Todos: []TodoItem{{" ", TodoPending}}}, "no content"},
		{TodoParams{Todos: []TodoItem{{"a", TodoInProgress}, {"b", TodoInProgress}}}, "one step at a time"},
		{TodoParams{Todos: []TodoItem{{strings.Repeat("x", TodoMaxRunes+1), TodoPending}}}, "longer than 200"},
		{TodoParams{Todos: make([]TodoItem, TodoMaxItems+1)}, "at most 30"},
	} {
		res := runTodo(t, th, c.in)
		assert.True(t, res.IsError)
		assert.Contains(t, res.Text, c.want)
	}
	assert.Nil(t, th.items, "nothing was set")
	res := runTodo(t, nopThread{}, TodoParams{})
	assert.Contains(t, res.Text, "shows no todo list")
}

type nopThread struct{}

func (nopThread) SetTitle(string) {}
