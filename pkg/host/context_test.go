package host_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/nvimtest"
)

// Context files go whole with the next message, later as diffs; the
// sidebar lists them and x removes one.
func TestContextFiles(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := startShell(t, bin)
		a := filepath.Join(n.Dir, "a.txt")
		b := filepath.Join(n.Dir, "b.txt")
		require.NoError(t, os.WriteFile(a, []byte("alpha\n"), 0o644))
		require.NoError(t, os.WriteFile(b, []byte("beta\n"), 0o644))
		n.Command("Magenta context-files " + a)
		// The keymap-style command adds the current buffer.
		n.Lua(`require("magenta.ui").open_file(...)`, b)
		n.Command("Magenta add-buffer")
		text := n.WaitForText("display", "  - b.txt")
		assert.Contains(t, text, "context files (x removes one):\n  - a.txt\n  - b.txt")

		n.FocusRole("input")
		n.Type("first")
		n.Keys("<CR>")
		call := fake.Next(t)
		first := call.Request.Messages[0].Content
		require.Len(t, first, 3)
		assert.Equal(t, "Context file a.txt:\n```\nalpha\n```", first[0].Text)
		assert.Equal(t, "Context file b.txt:\n```\nbeta\n```", first[1].Text)
		assert.Equal(t, "first", first[2].Text)
		call.Reply("seen")
		n.WaitForText("display", "seen")

		// b changes in its buffer (unsaved): the next message carries a diff.
		n.Lua(`require("magenta.ui").open_file(...); vim.api.nvim_buf_set_lines(0, 0, -1, false, {"BETA"})`, b)
		n.FocusRole("input")
		n.Type("second")
		n.Keys("<CR>")
		call = fake.Next(t)
		last := call.Request.Messages[len(call.Request.Messages)-1].Content
		require.Len(t, last, 2, "a.txt did not change: nothing sent for it")
		assert.True(t, strings.HasPrefix(last[0].Text, "Context file b.txt changed since you last saw it:\n```diff\n"))
		assert.Contains(t, last[0].Text, "-beta\n+BETA")
		call.Reply("ok")
		n.WaitForText("display", "ok")

		n.FocusRole("display")
		n.CursorTo("  - a.txt")
		n.Keys("x")
		n.WaitFor("a.txt removed", func() bool {
			return !strings.Contains(n.Text(n.Buffer("display")), "  - a.txt")
		}, func() string { return n.Text(n.Buffer("display")) })
	})
}
