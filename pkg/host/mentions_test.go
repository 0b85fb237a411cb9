package host_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/goldentest"
	"github.com/magenta-nvim/magenta/pkg/nvimtest"
)

// git runs git in dir and fails the test on error.
func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
}

// Every mention of one message reaches the request: @file (a quoted path
// with a space) and @buf as context files, @diag, @qf, @diff and @staged
// (from a real git repository) as attachments before the text; the text
// is sent as typed, an unknown mention included, and the chat lists what
// was attached.
func TestMentionsReachTheRequest(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := startShell(t, bin)
		git(t, n.Dir, "init", "-q")
		writeFile(t, filepath.Join(n.Dir, "tracked.txt"), "one\n")
		git(t, n.Dir, "add", "tracked.txt")
		git(t, n.Dir, "commit", "-q", "-m", "first")
		writeFile(t, filepath.Join(n.Dir, "tracked.txt"), "two\n")
		writeFile(t, filepath.Join(n.Dir, "staged.txt"), "staged line\n")
		git(t, n.Dir, "add", "staged.txt")
		writeFile(t, filepath.Join(n.Dir, "my file.txt"), "spaced\n")
		writeFile(t, filepath.Join(n.Dir, "b.txt"), "bee\n")

		n.Lua(`
			vim.cmd("topleft split b.txt")
			local buf = vim.api.nvim_get_current_buf()
			vim.api.nvim_buf_set_lines(buf, 0, -1, false, { "bee unsaved" })
			local ns = vim.api.nvim_create_namespace("mentions_test")
			vim.diagnostic.set(ns, buf, { { lnum = 0, col = 2, message = "bad thing", severity = vim.diagnostic.severity.ERROR, source = "lint" } })
			vim.fn.setqflist({ { filename = "b.txt", lnum = 1, col = 3, text = "qf entry" } })`)
		typed := `look @file:"my file.txt" @buf @diag @qf @diff @staged:staged.txt @nope me@example.com`
		n.Type(typed)
		n.Keys("<CR>")

		call := fake.Next(t)
		content := call.Request.Messages[0].Content
		require.Len(t, content, 7)
		assert.Equal(t, "Context file my file.txt:\n```\nspaced\n```", content[0].Text)
		assert.Equal(t, "Context file b.txt:\n```\nbee unsaved\n```", content[1].Text, "@buf reads the unsaved buffer")
		assert.Equal(t, "Diagnostics (@diag):\nb.txt:1:3: ERROR: bad thing [lint]", content[2].Text)
		assert.Equal(t, "Quickfix list (@qf):\nb.txt:1:3: qf entry", content[3].Text)
		assert.True(t, strings.HasPrefix(content[4].Text, "Working tree changes (git diff):\n```diff\ndiff --git a/tracked.txt b/tracked.txt"), content[4].Text)
		assert.Contains(t, content[4].Text, "-one\n+two\n")
		assert.NotContains(t, content[4].Text, "staged line", "the working tree diff leaves the staged file out")
		assert.True(t, strings.HasPrefix(content[5].Text, "Staged changes (git diff --staged -- staged.txt):\n```diff\n"), content[5].Text)
		assert.Contains(t, content[5].Text, "+staged line\n")
		assert.Equal(t, typed, content[6].Text, "mentions stay in the text; an unknown one stays plain text")

		n.WaitForText("display", "(attached:")
		call.Reply("got it")
		n.WaitForText("display", "got it")
		goldentest.Assert(t, "testdata/mentions.golden", userSection(n))
	})
}

// userSection is the display from the user's message to the reply.
func userSection(n *nvimtest.Nvim) string {
	text := n.Text(n.Buffer("display"))
	start := strings.Index(text, "## user")
	end := strings.Index(text, "## assistant")
	if start < 0 || end < start {
		return text
	}
	return text[start:end]
}

// A mention that finds nothing says so, and the model is told.
func TestMentionsOfNothing(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := startShell(t, bin)
		n.Type("check @diag and @qf and @diff")
		n.Keys("<CR>")
		content := fake.Next(t).Request.Messages[0].Content
		require.Len(t, content, 4)
		assert.Equal(t, "The user mentioned @diag: there are no diagnostics.", content[0].Text)
		assert.Equal(t, "The user mentioned @qf: the quickfix list is empty.", content[1].Text)
		assert.True(t, strings.HasPrefix(content[2].Text, "The user mentioned @diff but Working tree changes (git diff) failed: "), content[2].Text)
		assert.Contains(t, content[2].Text, "ot a git repository", "git's reason, not its usage text")
		assert.NotContains(t, content[2].Text, "\n")
		assert.Equal(t, "check @diag and @qf and @diff", content[3].Text)
		n.WaitForText("display", "(attached: @diag (none), @qf (empty), @diff (failed))")
	})
}

// The input buffer's omnifunc completes mention names after "@" and,
// after "@file:", the paths git does not ignore; <C-x><C-o> inserts a
// unique match.
func TestMentionCompletion(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, _ := startShell(t, bin)
		git(t, n.Dir, "init", "-q")
		writeFile(t, filepath.Join(n.Dir, ".gitignore"), "ignored.txt\ncache/\nconfig/\ndata/\nstate/\n")
		writeFile(t, filepath.Join(n.Dir, "ignored.txt"), "x\n")
		writeFile(t, filepath.Join(n.Dir, "src", "main.go"), "package main\n")
		writeFile(t, filepath.Join(n.Dir, "src", "util.go"), "package main\n")
		writeFile(t, filepath.Join(n.Dir, "my file.txt"), "x\n")

		n.FocusRole("input")
		complete := func(line string) (int, []string) {
			var res struct {
				Start int      `msgpack:"start"`
				Words []string `msgpack:"words"`
			}
			n.LuaResult(&res, `
				vim.api.nvim_buf_set_lines(0, 0, -1, false, { ... })
				vim.api.nvim_win_set_cursor(0, { 1, #(...) })
				local f = vim.bo.omnifunc
				local start = vim.fn[f](1, "")
				local words = {}
				if start >= 0 then
					for _, item in ipairs(vim.fn[f](0, (...):sub(start + 1))) do
						words[#words + 1] = item.word
					end
				end
				return { start = start, words = words }`, line)
			return res.Start, res.Words
		}
		start, words := complete("look at @d")
		assert.Equal(t, 8, start)
		assert.Equal(t, []string{"@diag", "@diff"}, words)
		_, words = complete("@file:")
		listed := []string{`@file:.gitignore`, `@file:"my file.txt"`, "@file:src/main.go", "@file:src/util.go"}
		assert.Equal(t, listed, words, "ignored.txt is ignored")
		// Without ripgrep, git's list gives the same.
		n.Lua(`require("magenta.mentions").RG = ""`)
		_, words = complete("@file:")
		assert.Equal(t, listed, words, "git ls-files")
		n.Lua(`require("magenta.mentions").RG = "rg"`)
		_, words = complete("see @file:util")
		assert.Equal(t, []string{"@file:src/util.go"}, words, "a substring matches too")
		start, _ = complete("mail me@exa")
		assert.Equal(t, -3, start, "an @ inside a word is no mention")

		n.Lua(`vim.api.nvim_buf_set_lines(0, 0, -1, false, {})`)
		n.Keys("ilook @file:src/ma<C-x><C-o><Esc>")
		assert.Equal(t, []string{"look @file:src/main.go"}, n.Lines(n.Buffer("input")))
	})
}

// @diag and @qf carry what their files hold (a spell checker quotes the
// words of an open key): lines about a file the model may not read
// without asking are left out and the file named, as get_file would ask
// (issue 22, finding 5).
func TestDiagAndQuickfixLeaveOutUnreadableFiles(t *testing.T) {
	home := t.TempDir()
	key := filepath.Join(home, ".ssh", "id_rsa")
	writeFile(t, key, "MIIEvQIBADANBgkq\n")
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := startShell(t, bin)
		writeFile(t, filepath.Join(n.Dir, "b.txt"), "bee\n")
		writeFile(t, filepath.Join(n.Dir, ".env"), "TOKEN=hunter2\n")
		n.Lua(`
			local ns = vim.api.nvim_create_namespace("diag_check_test")
			local qf = {}
			for _, f in ipairs({ "b.txt", ".env", ... }) do
				vim.cmd("badd " .. vim.fn.fnameescape(f))
				local buf = vim.fn.bufnr(f)
				vim.fn.bufload(buf)
				vim.diagnostic.set(ns, buf, { { lnum = 0, col = 0, message = "word in " .. vim.fn.fnamemodify(f, ":t") .. ": " .. vim.fn.getbufline(buf, 1)[1], severity = vim.diagnostic.severity.INFO } })
				qf[#qf + 1] = { bufnr = buf, lnum = 1, col = 1, text = "qf " .. vim.fn.getbufline(buf, 1)[1] }
			end
			vim.fn.setqflist(qf)`, key)
		n.Type("look @diag @qf")
		n.Keys("<CR>")
		call := fake.Next(t)
		content := call.Request.Messages[0].Content
		require.GreaterOrEqual(t, len(content), 2)
		diag, qf := content[0].Text, content[1].Text
		for _, text := range []string{diag, qf} {
			assert.Contains(t, text, "bee", "the workspace file's line is kept")
			assert.NotContains(t, text, "hunter2")
			assert.NotContains(t, text, "MIIEvQIBADANBgkq")
			assert.Contains(t, text, "Left out: what 2 file(s) the model may not read without asking hold")
		}
		call.Reply("ok")
	})
}
