package host_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities/docker/dockertest"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/host"
	"github.com/magenta-nvim/magenta/pkg/nvimtest"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
	"github.com/magenta-nvim/magenta/pkg/sandbox/sandboxtest"
)

// rewindWorkspace opens Neovim in work with its data in dataDir, the
// plugin set up with the defaults (sandbox on) and the sidebar open.
func rewindWorkspace(t *testing.T, bin, dataDir, work string) (*nvimtest.Nvim, *providertest.Fake, *host.Host) {
	n := nvimtest.Start(t, bin, "XDG_DATA_HOME="+dataDir)
	fake := providertest.New()
	h := n.StartHost(host.Options{Version: "test", NewProvider: func(config.Profile) (provider.Provider, error) { return fake, nil }})
	n.Command("cd " + work)
	n.Setup(`{ profiles = { { name = "fast", provider = "anthropic", model = "model-a" } }, shell = { logRoot = "` + filepath.Join(dataDir, "logs") + `" } }`)
	n.Command("Magenta toggle")
	n.WaitForText("display", "# New thread")
	return n, fake, h
}

func readOr(t *testing.T, path string) string {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return "<absent>"
	}
	require.NoError(t, err)
	return string(b)
}

// The model edits an open file with edit_file, changes another with sed
// -i, removes a third and creates a fourth through bash_command (confined
// by the sandbox); :Magenta rewind 1 code brings all four back, the open
// buffer shows the old text and one u returns the agent's version. After
// restarting Neovim and the host, the checkpoint is still there.
func TestRewindCodeRestoresToolAndShellChanges(t *testing.T) {
	sandboxtest.Require(t)
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		dataDir, work := t.TempDir(), t.TempDir()
		files := map[string]string{"edited.txt": "alpha\n", "sedded.txt": "two\n", "removed.txt": "three\n"}
		for name, text := range files {
			require.NoError(t, os.WriteFile(filepath.Join(work, name), []byte(text), 0o644))
		}
		n, fake, h := rewindWorkspace(t, bin, dataDir, work)
		edited := filepath.Join(work, "edited.txt")
		n.Lua(`require("magenta.ui").open_file(...)`, edited)

		n.FocusRole("input")
		n.Type("change the files")
		n.Keys("<CR>")
		call := fake.Next(t)
		call.ToolUse("tu_e", "edit_file", map[string]any{"path": "edited.txt", "old_string": "alpha", "new_string": "ALPHA"})
		call.ToolUse("tu_b", "bash_command", map[string]string{"command": "sed -i s/two/TWO/ sedded.txt && rm removed.txt && echo new > created.txt", "description": "shell changes"})
		call.Stop(provider.StopToolUse)
		next := fake.Next(t)
		for id, b := range toolResults(next) {
			require.False(t, b.IsError, "%s: %s", id, b.Result[0].Text)
		}
		next.Reply("changed them")
		n.WaitForText("display", "changed them")
		require.Equal(t, "TWO\n", readOr(t, filepath.Join(work, "sedded.txt")))
		require.Equal(t, "ALPHA\n", readOr(t, edited))

		n.Command("Magenta rewind 1 code")
		n.WaitFor("the files restored", func() bool {
			return readOr(t, filepath.Join(work, "created.txt")) == "<absent>" && readOr(t, edited) == "alpha\n"
		}, func() string { return readOr(t, edited) })
		assert.Equal(t, "two\n", readOr(t, filepath.Join(work, "sedded.txt")))
		assert.Equal(t, "three\n", readOr(t, filepath.Join(work, "removed.txt")))
		assert.Equal(t, []string{"alpha"}, bufferLines(n, edited), "the open buffer shows the old text")

		// One u in the file's window brings the agent's version back.
		n.Lua(`for _, w in ipairs(vim.api.nvim_list_wins()) do if vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(w)) == ... then vim.api.nvim_set_current_win(w) end end`, edited)
		n.Keys("u")
		assert.Equal(t, []string{"ALPHA"}, bufferLines(n, edited))
		n.Keys("<C-r>")
		assert.Equal(t, []string{"alpha"}, bufferLines(n, edited))

		// A new Neovim and host: the thread and its checkpoint are saved.
		h.Close()
		require.NoError(t, os.WriteFile(filepath.Join(work, "sedded.txt"), []byte("changed again by the agent?\n"), 0o644))
		n, _, _ = rewindWorkspace(t, bin, dataDir, work)
		n.Command("Magenta threads")
		n.WaitForText("display", "change the files")
		n.FocusRole("display")
		n.CursorTo("change the files")
		n.Keys("<CR>")
		n.WaitForText("display", "changed them")
		n.Command("Magenta rewind 1 code!")
		n.WaitFor("sedded.txt restored again", func() bool {
			return readOr(t, filepath.Join(work, "sedded.txt")) == "two\n"
		}, func() string { return readOr(t, filepath.Join(work, "sedded.txt")) })
	})
}

// A buffer the user changed after the agent's last change is not
// overwritten: the preview names it, a restore without "!" refuses and
// says so, and the buffer keeps the user's text. The conversation
// rewinds to a new thread with the message back in the input; "both"
// does the files and the conversation.
func TestRewindConflictsConversationAndBoth(t *testing.T) {
	sandboxtest.Require(t)
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		dataDir, work := t.TempDir(), t.TempDir()
		notes := filepath.Join(work, "notes.txt")
		require.NoError(t, os.WriteFile(notes, []byte("first\n"), 0o644))
		n, fake, _ := rewindWorkspace(t, bin, dataDir, work)
		n.Lua(`require("magenta.ui").open_file(...)`, notes)

		n.FocusRole("input")
		n.Type("edit the notes")
		n.Keys("<CR>")
		call := fake.Next(t)
		call.ToolUse("tu_e", "edit_file", map[string]any{"path": "notes.txt", "old_string": "first", "new_string": "agent"})
		call.Stop(provider.StopToolUse)
		fake.Next(t).Reply("edited")
		n.WaitForText("display", "edited")
		n.FocusRole("input")
		n.Type("second message")
		n.Keys("<CR>")
		fake.Next(t).Reply("noted")
		n.WaitForText("display", "noted")

		// The user types in the file after the agent's edit (unsaved).
		n.Lua(`vim.api.nvim_buf_set_lines(vim.fn.bufnr(...), 0, -1, false, {"mine"})`, notes)
		var conflicts []string
		n.LuaResult(&conflicts, `local r = require('magenta.host').request('rewind_preview', { n = 1, buffers = require('magenta.rewind').modified() }); return r.conflicts`)
		assert.Equal(t, []string{"notes.txt"}, conflicts)
		n.Lua(`require('magenta.host').notify('rewind', { n = 1, what = "code", force = false })`)
		n.WaitFor("the refusal", func() bool { return strings.Contains(n.Messages(), "nothing was restored") }, n.Messages)
		assert.Equal(t, []string{"mine"}, bufferLines(n, notes), "the user's text is kept")

		// The list: newest first, with what changed since each.
		var list struct {
			Messages []struct {
				N     int    `msgpack:"n"`
				Text  string `msgpack:"text"`
				Files int    `msgpack:"files"`
			} `msgpack:"messages"`
		}
		n.LuaResult(&list, `return require('magenta.host').request('rewind_list', { buffers = require('magenta.rewind').modified() })`)
		require.Len(t, list.Messages, 2)
		assert.Equal(t, "edit the notes", list.Messages[0].Text)
		assert.Equal(t, 1, list.Messages[0].Files)

		// Conversation: back to before message 2, its text in the input.
		n.Command("Magenta rewind 2 conversation")
		n.WaitFor("message 2 back in the input", func() bool {
			return strings.Contains(strings.Join(n.Lines(n.Buffer("input")), "\n"), "second message")
		}, func() string { return strings.Join(n.Lines(n.Buffer("input")), "\n") })
		text := n.WaitForText("display", "edited")
		assert.NotContains(t, text, "noted")

		// Both, forced, from the rewound thread: its message 1 is the
		// original's (its checkpoint adopted).
		n.Command("Magenta rewind 1 both!")
		n.WaitFor("the notes restored", func() bool { return readOr(t, notes) == "first\n" }, func() string { return readOr(t, notes) })
		n.WaitFor("message 1 back in the input", func() bool {
			return strings.Contains(strings.Join(n.Lines(n.Buffer("input")), "\n"), "edit the notes")
		}, func() string { return strings.Join(n.Lines(n.Buffer("input")), "\n") })
	})
}

// A Docker thread's files live in its container: its code cannot be
// rewound, and the command says so instead of doing nothing.
func TestRewindInADockerThreadSaysItCannot(t *testing.T) {
	dockertest.Image(t)
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		container := dockertest.Start(t)
		dataDir, work := t.TempDir(), t.TempDir()
		n, fake, _ := rewindWorkspace(t, bin, dataDir, work)
		n.Command("Magenta new-thread docker " + container + " /tmp")
		n.WaitForText("display", "docker:"+container+" · /tmp")
		n.FocusRole("input")
		n.Type("in the box")
		n.Keys("<CR>")
		fake.Next(t).Reply("boxed")
		n.WaitForText("display", "boxed")
		// The error is shown (vim.notify at ERROR level, which a command
		// run over RPC turns into the command's error).
		var shown string
		n.LuaResult(&shown, `local ok, err = pcall(vim.cmd, "Magenta rewind 1 code"); return tostring(err) .. "\n" .. vim.api.nvim_exec("messages", true)`)
		assert.Contains(t, shown, "its files are not checkpointed, so its code cannot be rewound")
	})
}
