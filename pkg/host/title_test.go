package host_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/nvimtest"
	"github.com/magenta-nvim/magenta/pkg/provider"
)

// A thread the model has not named is titled by the first words of its
// first message (its mention kept readable) — in the header, the thread
// list and the saved threads — until thread_title names it; the list
// counts "1 message", not "1 messages".
func TestThreadTitleFallsBackToTheFirstMessage(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		dataDir, work := t.TempDir(), t.TempDir()
		require.NoError(t, os.MkdirAll(filepath.Join(work, "notes"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(work, "notes", "todo.txt"), []byte("buy milk\n"), 0o644))
		n, fake, h := openIn(t, bin, dataDir, work)
		n.Command("Magenta toggle")
		n.WaitForText("display", "# New thread")
		n.Type("Please read @file:notes/todo.txt and then tell me what the first item on it is")
		n.Keys("<CR>")
		call := fake.Next(t)
		const title = "Please read @file:todo.txt and then tell me what…"
		n.WaitForText("display", "# "+title)

		n.Command("Magenta threads")
		list := n.WaitForText("display", "# Threads")
		assert.Contains(t, list, title+"  [fast, busy, 1 message, ")
		call.Reply("Buy milk.")
		n.Command("Magenta threads")
		n.WaitForText("display", title+"  [fast, idle, 2 messages, ")
		h.Close()

		// Saved with the title.
		n, fake, _ = openIn(t, bin, dataDir, work)
		n.Command("Magenta toggle")
		n.Command("Magenta threads")
		n.WaitForText("display", title+"  [fast, saved, 2 messages, ")
		n.FocusRole("display")
		n.CursorTo("saved, 2 messages")
		n.Keys("<CR>")
		n.WaitForText("display", "# "+title)

		// The model's title replaces it.
		n.Type("name it")
		n.Keys("<CR>")
		call = fake.Next(t)
		call.ToolUse("tu_t", "thread_title", map[string]string{"title": "Shopping list"})
		call.Stop(provider.StopToolUse)
		fake.Next(t).Reply("Named.")
		text := n.WaitForText("display", "# Shopping list")
		assert.NotContains(t, text, "# "+title)
	})
}
