package host_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/nvimtest"
	"github.com/magenta-nvim/magenta/pkg/provider"
)

// plantHomeSecret writes a private key in a home-like directory outside
// the workspace.
func plantHomeSecret(t *testing.T) string {
	secret := filepath.Join(t.TempDir(), ".ssh", "id_rsa")
	require.NoError(t, os.MkdirAll(filepath.Dir(secret), 0o700))
	require.NoError(t, os.WriteFile(secret, []byte("PRIVATE KEY MATERIAL\n"), 0o600))
	return secret
}

// A context file turned into a link to a home secret after it was
// attached, and an @file mention of a link to the workspace's .env, are
// not sent: the chat says which and why, the model is told to use
// get_file (which asks).
func TestContextFilesAndMentionsOfPlantedLinksAreNotSent(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := startShell(t, bin)
		secret := plantHomeSecret(t)
		notes := filepath.Join(n.Dir, "notes.txt")
		require.NoError(t, os.WriteFile(notes, []byte("just notes\n"), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(n.Dir, ".env"), []byte("TOKEN=hunter2\n"), 0o600))
		require.NoError(t, os.Symlink(filepath.Join(n.Dir, ".env"), filepath.Join(n.Dir, "todo.txt")))
		n.Command("Magenta context-files " + notes)
		n.WaitForText("display", "  - notes.txt")

		n.FocusRole("input")
		n.Type("first")
		n.Keys("<CR>")
		call := fake.Next(t)
		assert.Equal(t, "Context file notes.txt:\n```\njust notes\n```", call.Request.Messages[0].Content[0].Text)
		call.Reply("seen")
		n.WaitForText("display", "seen")

		// A confined command swaps notes.txt for a link to the key.
		require.NoError(t, os.Remove(notes))
		require.NoError(t, os.Symlink(secret, notes))
		n.FocusRole("input")
		n.Type("second @file:todo.txt")
		n.Keys("<CR>")
		call = fake.Next(t)
		sent, err := json.Marshal(call.Request.Messages)
		require.NoError(t, err)
		assert.NotContains(t, string(sent), "PRIVATE")
		assert.NotContains(t, string(sent), "hunter2")
		last := call.Request.Messages[len(call.Request.Messages)-1].Content
		require.Len(t, last, 3)
		assert.Contains(t, last[0].Text, "Context file notes.txt was not included: "+secret)
		assert.Contains(t, last[0].Text, "Read it with get_file")
		assert.Contains(t, last[1].Text, "Context file todo.txt was not included")
		assert.Contains(t, last[1].Text, "a secret (.env)")
		text := n.WaitForText("display", "Context file todo.txt was not sent")
		assert.Contains(t, text, "Context file notes.txt was not sent: "+secret)
		call.Reply("ok")
		n.WaitForText("display", "ok")
	})
}

// A log root planted as a symlink to "/" (and its fallback too) grants
// nothing: get_file of a home secret still asks.
func TestPlantedLogRootGrantsNothing(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := start(t, bin)
		secret := plantHomeSecret(t)
		root := filepath.Join(t.TempDir(), "magenta")
		require.NoError(t, os.Symlink("/", root))
		require.NoError(t, os.Symlink("/", root+"-"+strconv.Itoa(os.Getuid())))
		n.Setup(`{ shell = { logRoot = "` + root + `" }, sandbox = { enabled = false } }`)
		n.Command("Magenta toggle")
		n.WaitForText("display", "# New thread")

		n.FocusRole("input")
		n.Type("read the key")
		n.Keys("<CR>")
		call := fake.Next(t)
		call.ToolUse("tu_k", "get_file", map[string]any{"path": secret})
		call.Stop(provider.StopToolUse)
		text := n.WaitForText("display", "> NO")
		assert.Contains(t, text, "a secret (.ssh)")
		n.FocusRole("display")
		n.CursorTo("> NO")
		n.Keys("<CR>")
		next := fake.Next(t)
		res, isErr := lastResult(t, next)
		assert.True(t, isErr)
		assert.NotContains(t, res, "PRIVATE")
		next.Reply("ok")
	})
}

// diagnostics of a home secret asks before Neovim loads it; declined,
// no buffer of it is left for @buf to attach.
func TestDiagnosticsOfASecretAsks(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := startShell(t, bin)
		secret := plantHomeSecret(t)
		// diagnostics is offered (so it runs) for a server configured for
		// the workspace's Go files.
		require.NoError(t, os.WriteFile(filepath.Join(n.Dir, "main.go"), []byte("package main\n"), 0o644))
		n.Lua(`vim.api.nvim_create_autocmd("FileType", { pattern = "go", desc = "start an lsp server", callback = function() end })`)
		n.Type("diagnostics")
		n.Keys("<CR>")
		call := fake.Next(t)
		call.ToolUse("tu_d", "diagnostics", map[string]any{"filePath": secret})
		call.Stop(provider.StopToolUse)
		text := n.WaitForText("display", "> NO")
		assert.Contains(t, text, "a secret (.ssh)")
		n.FocusRole("display")
		n.CursorTo("> NO")
		n.Keys("<CR>")
		next := fake.Next(t)
		res, isErr := lastResult(t, next)
		assert.True(t, isErr)
		assert.Contains(t, res, "the user declined")
		var buf int
		n.LuaResult(&buf, `return vim.fn.bufnr(...)`, secret)
		assert.Equal(t, -1, buf, "no buffer of the secret")
		next.Reply("ok")
	})
}
