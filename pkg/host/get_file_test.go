package host_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/chat"
	"github.com/magenta-nvim/magenta/pkg/nvimtest"
	"github.com/magenta-nvim/magenta/pkg/provider"
)

func TestGetFileSeesUnsavedBuffersAndAsksForSecrets(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := startShell(t, bin)
		path := filepath.Join(n.Dir, "main.go")
		require.NoError(t, os.WriteFile(path, []byte("package main\n"), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(n.Dir, ".env"), []byte("TOKEN=x\n"), 0o600))
		// The user edits main.go in another window and does not save.
		n.Lua(`require("magenta.ui").open_file(...); vim.api.nvim_buf_set_lines(0, 1, 1, false, {"// unsaved"})`, path)

		n.FocusRole("input")
		n.Type("read it")
		n.Keys("<CR>")
		call := fake.Next(t)
		call.ToolUse("tu_f", "get_file", map[string]any{"path": "main.go"})
		call.Stop(provider.StopToolUse)
		next := fake.Next(t)
		res, isErr := lastResult(t, next)
		require.False(t, isErr, res)
		assert.Equal(t, "1\tpackage main\n2\t// unsaved", res)

		next.ToolUse("tu_s", "get_file", map[string]any{"path": ".env"})
		next.Stop(provider.StopToolUse)
		text := n.WaitForText("display", "> NO")
		assert.Contains(t, text, "needs approval: reads .env, a secret (.env)")
		assert.NotContains(t, text, "> ALWAYS")
		n.FocusRole("display")
		n.CursorTo("> NO")
		n.Keys("<CR>")
		third := fake.Next(t)
		res, isErr = lastResult(t, third)
		assert.True(t, isErr)
		assert.Contains(t, res, "was not read: the user declined")
		third.Reply("ok")
	})
}

// files.rules from setup(): a read rule outside the workspace allows
// without asking; a secret rule inside makes reads ask.
func TestFileRulesFromSetup(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := start(t, bin)
		docs := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(docs, "guide.md"), []byte("read me\n"), 0o644))
		var msg string
		n.LuaResult(&msg, `local ok, err = require('magenta.config').set({ files = { rules = { { read = true } } } }); return err or ""`)
		assert.Equal(t, "magenta: option 'files.rules[1].path' is required", msg)
		n.Setup(`{ files = { rules = { { path = "` + docs + `", read = true } } } }`)
		n.Command("Magenta toggle")
		n.Type("read the guide")
		n.Keys("<CR>")
		call := fake.Next(t)
		call.ToolUse("tu_r", "get_file", map[string]any{"path": filepath.Join(docs, "guide.md")})
		call.Stop(provider.StopToolUse)
		next := fake.Next(t)
		res, isErr := lastResult(t, next)
		assert.False(t, isErr, res)
		assert.Equal(t, "1\tread me", res)
		next.Reply("ok")
	})
}

// A FIFO is refused at once by get_file, and as a context file it is
// named, not read: neither blocks the thread.
func TestFIFOIsRefusedNotReadForever(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := startShell(t, bin)
		fifo := filepath.Join(n.Dir, "pipe")
		if err := syscall.Mkfifo(fifo, 0o644); err != nil {
			t.Skip("no FIFOs here:", err)
		}
		big := filepath.Join(n.Dir, "big.log")
		require.NoError(t, os.WriteFile(big, bytes.Repeat([]byte("x"), chat.ContextFileMaxBytes+1), 0o644))
		n.Command("Magenta context-files " + fifo + " " + big)
		n.WaitForText("display", "  - big.log")

		n.FocusRole("input")
		n.Type("read the pipe")
		n.Keys("<CR>")
		call := fake.Next(t)
		first := call.Request.Messages[0].Content
		require.Len(t, first, 3)
		assert.Equal(t, "Context file pipe is not a regular file (a FIFO, device or socket); it is not included.", first[0].Text)
		assert.Equal(t, fmt.Sprintf("Context file big.log is %d bytes, too large to include (the limit is %d KB); read the parts you need with get_file.",
			chat.ContextFileMaxBytes+1, chat.ContextFileMaxBytes>>10), first[1].Text)
		call.ToolUse("tu_p", "get_file", map[string]any{"path": "pipe"})
		call.Stop(provider.StopToolUse)
		next := fake.Next(t)
		res, isErr := lastResult(t, next)
		assert.True(t, isErr)
		assert.Equal(t, fifo+" was not read: it is not a regular file (a FIFO, device or socket), which could block forever", res)
		next.Reply("ok")
	})
}
