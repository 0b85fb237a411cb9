package host_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/nvimtest"
	"github.com/magenta-nvim/magenta/pkg/provider"
)

// A command's log opened from the chat with <CR> applies no modeline,
// even with 'modeline' on (some builds turn it off for root, so the test
// turns it on): the output's `vim: set ft=evil ts=3:` sets neither
// option, now or when the buffer is edited again. The same text in a
// file the user opens does (the test's Neovim does apply modelines).
func TestLogOpensWithoutModelines(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := startShell(t, bin)
		n.Lua(`vim.o.modeline = true; vim.o.modelines = 5`)
		n.Type("go")
		n.Keys("<CR>")
		call := fake.Next(t)
		call.ToolUse("tu_m", "bash_command", map[string]string{"command": "echo 'vim: set ft=evil ts=3:'", "description": "modeline"})
		call.Stop(provider.StopToolUse)
		fake.Next(t).Reply("printed")
		n.WaitForText("display", "printed")

		n.FocusRole("display")
		n.CursorTo("log: ")
		n.Keys("<CR>")
		name := func() string {
			var s string
			n.LuaResult(&s, `return vim.api.nvim_buf_get_name(0)`)
			return s
		}
		n.WaitFor("the log in a normal window", func() bool { return strings.HasSuffix(name(), "bashCommand.log") }, name)
		var got struct {
			Ft      string `msgpack:"ft"`
			Ts      int    `msgpack:"ts"`
			Ml      bool   `msgpack:"ml"`
			Global  bool   `msgpack:"global"`
			Content string `msgpack:"content"`
		}
		state := `return { ft = vim.bo.filetype, ts = vim.bo.tabstop, ml = vim.bo.modeline, global = vim.go.modeline,
			content = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n") }`
		n.LuaResult(&got, state)
		require.Contains(t, got.Content, "vim: set ft=evil ts=3:", "the log holds the modeline")
		assert.NotEqual(t, "evil", got.Ft)
		assert.NotEqual(t, 3, got.Ts)
		assert.False(t, got.Ml, "the log's buffer keeps modelines off")
		assert.True(t, got.Global, "the user's 'modeline' is restored")

		// Edited again (the window-local part of modelines would apply).
		n.Command("edit")
		n.LuaResult(&got, state)
		assert.NotEqual(t, "evil", got.Ft)
		assert.NotEqual(t, 3, got.Ts)

		// Control: the same text in a file of the user's applies.
		log := name()
		control := filepath.Join(n.Dir, "control.txt")
		data, err := os.ReadFile(log)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(control, data, 0o644))
		n.Command("edit " + control)
		n.LuaResult(&got, state)
		assert.Equal(t, "evil", got.Ft, "this Neovim applies modelines to ordinary files")
		assert.Equal(t, 3, got.Ts)
	})
}
