package chat

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/magenta-nvim/magenta/pkg/provider"
)

// todo_write's list is drawn under the header, replaced by the next
// call, and comes back with the thread after a restart.
func TestTodoListIsDrawnAndSaved(t *testing.T) {
	dir := t.TempDir()
	h, _ := savingHarness(t, dir, nil)
	h.app.Send("do three things")
	call := h.fake.Next(t)
	call.ToolUse("t1", "todo_write", map[string]any{"todos": []map[string]string{
		{"content": "first", "status": "in_progress"}, {"content": "second", "status": "pending"}, {"content": "third", "status": "pending"}}})
	call.Stop(provider.StopToolUse)
	next := h.fake.Next(t)
	next.ToolUse("t2", "todo_write", map[string]any{"todos": []map[string]string{
		{"content": "first", "status": "done"}, {"content": "second", "status": "in_progress"}, {"content": "third", "status": "pending"}}})
	next.Stop(provider.StopToolUse)
	h.fake.Next(t).Reply("working on it")
	text := h.screen.waitForText(t, "working on it")
	assert.Contains(t, text, "todo (1 of 3 done):\n  [x] first\n  [>] second\n  [ ] third\n")
	assert.Contains(t, text, "✓ todo_write: 1 of 3 done, 1 in progress")
	id := h.app.ActiveThreadID()
	h.app.Close()

	h2, _ := savingHarness(t, dir, nil)
	h2.app.SelectThread(id)
	text = h2.screen.waitForText(t, "working on it")
	assert.Contains(t, text, "todo (1 of 3 done):\n  [x] first\n  [>] second\n")
}
