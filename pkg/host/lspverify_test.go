package host_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/nvimtest"
	"github.com/magenta-nvim/magenta/pkg/provider"
)

// startVerify starts the sidebar with lspOpts as the lsp option and
// returns a function that has the model call one tool and returns the
// result the provider receives.
func startVerify(t *testing.T, bin, lspOpts string) (*nvimtest.Nvim, func(tool string, input map[string]any) (string, bool)) {
	n, fake := start(t, bin)
	n.Setup(`{ shell = { logRoot = "` + filepath.Join(n.Dir, "logs") + `" }, sandbox = { enabled = false }, lsp = ` + lspOpts + ` }`)
	n.Command("Magenta toggle")
	n.WaitForText("display", "# New thread")
	turn := 0
	ask := func(tool string, input map[string]any) (string, bool) {
		turn++
		n.FocusRole("input")
		n.Type("go")
		n.Keys("<CR>")
		call := fake.Next(t)
		call.ToolUse(fmt.Sprintf("tu_verify%d", turn), tool, input)
		call.Stop(provider.StopToolUse)
		next := fake.Next(t)
		res, isErr := lastResult(t, next)
		reply := fmt.Sprintf("done %d", turn)
		next.Reply(reply)
		n.WaitForText("display", reply)
		return res, isErr
	}
	return n, ask
}

// attachServer attaches the server cmd to every buffer of file type ft,
// the way a user's configuration does (vim.lsp.start where it exists,
// start_client + buf_attach_client on 0.7), rooted at the workspace.
func attachServer(t *testing.T, n *nvimtest.Nvim, name, ft string, cmd []string) {
	n.Lua(`
		local name, ft, cmd, root = ...
		vim.api.nvim_create_autocmd("FileType", { pattern = ft, callback = function(ev)
			local cfg = { name = name, cmd = cmd, root_dir = root }
			if vim.lsp.start then
				vim.lsp.start(cfg, { bufnr = ev.buf })
			else
				_G.servers = _G.servers or {}
				_G.servers[name] = _G.servers[name] or vim.lsp.start_client(cfg)
				vim.lsp.buf_attach_client(ev.buf, _G.servers[name])
			end
		end })`, name, ft, cmd, n.Dir)
	// Servers write caches under XDG_CACHE_HOME, inside the test's
	// directory: stop them before it is removed.
	t.Cleanup(func() { stopServers(n) })
}

// bufferState is "none", "unloaded" or "loaded" for the buffer of path.
func bufferState(n *nvimtest.Nvim, path string) string {
	var s string
	n.LuaResult(&s, `
		for _, b in ipairs(vim.api.nvim_list_bufs()) do
			if vim.api.nvim_buf_get_name(b) == ... then
				return vim.api.nvim_buf_is_loaded(b) and "loaded" or "unloaded"
			end
		end
		return "none"`, path)
	return s
}

const verifyMain = `package main

func greet(name string) string { return "hello " + name }

func main() {
	_ = greet("a")
}
`

const verifyUtil = `package main

func helper() int { return 1 }
`

// The model's edit introduces a type error: the result names it with its
// line and message; the next edit fixes it: the result says so. A file
// no buffer shows is loaded for the check and unloaded after it, and the
// user's windows, alternate file and jump list stay as they were.
func TestEditResultsCarryTheDiagnosticsTheyChange(t *testing.T) {
	server := gopls(t)
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, ask := startVerify(t, bin, `{ verifyTimeout = 10 }`)
		require.NoError(t, os.WriteFile(filepath.Join(n.Dir, "go.mod"), []byte("module example.com/verify\n\ngo 1.22\n"), 0o644))
		main, util := filepath.Join(n.Dir, "main.go"), filepath.Join(n.Dir, "util.go")
		require.NoError(t, os.WriteFile(main, []byte(verifyMain), 0o644))
		require.NoError(t, os.WriteFile(util, []byte(verifyUtil), 0o644))
		attachServer(t, n, "gopls", "go", []string{server})
		n.Lua(`require("magenta.ui").open_file(...)`, main)

		res, isErr := ask("edit_file", map[string]any{"path": "main.go", "old_string": `greet("a")`, "new_string": `greet(1)`})
		require.False(t, isErr, res)
		assert.Contains(t, res, "Diagnostics after this edit: 1 introduced")
		assert.Regexp(t, `introduced: main\.go:6:\d+ error cannot use 1 .* \(compiler\)`, res)
		text := n.WaitForText("display", "introduced: main.go:6:")
		assert.Contains(t, text, "+\t_ = greet(1)", "drawn under the diff")

		res, isErr = ask("edit_file", map[string]any{"path": "main.go", "old_string": `greet(1)`, "new_string": `greet("b")`})
		require.False(t, isErr, res)
		assert.Contains(t, res, "Diagnostics after this edit: 1 fixed")
		assert.Regexp(t, `fixed: main\.go:6:\d+ error cannot use 1`, res)

		// An edit that changes no diagnostic adds nothing.
		res, isErr = ask("edit_file", map[string]any{"path": "main.go", "old_string": "func main() {", "new_string": "// main runs.\nfunc main() {"})
		require.False(t, isErr, res)
		assert.NotContains(t, res, "Diagnostics after")

		// util.go is loaded in no buffer (Neovim makes an unloaded one
		// when gopls reports on it: its unused function).
		require.NotEqual(t, "loaded", bufferState(n, util))
		view := userView(n)
		res, isErr = ask("edit_file", map[string]any{"path": "util.go", "old_string": "return 1", "new_string": `return "one"`})
		require.False(t, isErr, res)
		assert.Regexp(t, `introduced: util\.go:3:\d+ error cannot use "one"`, res)
		n.WaitFor("the buffer loaded for the check to go", func() bool { return bufferState(n, util) != "loaded" }, func() string { return bufferState(n, util) })
		var listed bool
		n.LuaResult(&listed, `return vim.fn.buflisted(vim.fn.bufnr(...)) == 1`, util)
		assert.False(t, listed)
		assert.Equal(t, view, userView(n))
		data, err := os.ReadFile(util)
		require.NoError(t, err)
		assert.Contains(t, string(data), `return "one"`)
	})
}

// lsp.verifyEdits = false: nothing is appended.
func TestEditVerificationOff(t *testing.T) {
	server := gopls(t)
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, ask := startVerify(t, bin, `{ verifyEdits = false }`)
		require.NoError(t, os.WriteFile(filepath.Join(n.Dir, "go.mod"), []byte("module example.com/verify\n\ngo 1.22\n"), 0o644))
		main := filepath.Join(n.Dir, "main.go")
		require.NoError(t, os.WriteFile(main, []byte(verifyMain), 0o644))
		attachServer(t, n, "gopls", "go", []string{server})
		n.Lua(`require("magenta.ui").open_file(...)`, main)
		res, isErr := ask("edit_file", map[string]any{"path": "main.go", "old_string": `greet("a")`, "new_string": `greet(1)`})
		require.False(t, isErr, res)
		assert.Equal(t, "Edited "+main+" (1 replacement).", res)
		// The server did see the error the result does not name.
		n.WaitFor("gopls to report the error", func() bool {
			var count int
			n.LuaResult(&count, `return #vim.diagnostic.get(vim.fn.bufnr(...))`, main)
			return count > 0
		}, n.Messages)
	})
}

// pylsp answers in another shape than gopls (no versions, pyflakes as
// the source): write_file of a new file and edit_file of one in no
// buffer both report what they introduced, and an unused import that was
// there before is not reported again.
func TestEditVerificationWithPylsp(t *testing.T) {
	pylsp, err := exec.LookPath("pylsp")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("pylsp is not installed (apt-get install python3-pylsp python3-pyflakes)")
		}
		t.Skip("pylsp is not installed (apt-get install python3-pylsp python3-pyflakes)")
	}
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, ask := startVerify(t, bin, `{ verifyTimeout = 10 }`)
		attachServer(t, n, "pylsp", "python", []string{pylsp})
		app := filepath.Join(n.Dir, "app.py")
		require.NoError(t, os.WriteFile(app, []byte("import os\n\n\ndef f():\n    return 1\n"), 0o644))

		res, isErr := ask("edit_file", map[string]any{"path": "app.py", "old_string": "return 1", "new_string": "return undefined_name"})
		require.False(t, isErr, res)
		assert.Contains(t, res, "introduced: app.py:5:12 error undefined name 'undefined_name' (pyflakes)")
		assert.NotContains(t, res, "'os' imported but unused", "there before the edit")
		n.WaitFor("the buffer loaded for the check to go", func() bool { return bufferState(n, app) == "none" }, func() string { return bufferState(n, app) })

		res, isErr = ask("write_file", map[string]any{"path": "new.py", "content": "print(missing)\n"})
		require.False(t, isErr, res)
		assert.Contains(t, res, "introduced: new.py:1:7 error undefined name 'missing' (pyflakes)")
	})
}

// A server that says nothing about the new text, and one that dies when
// the text changes: the result names both, and compares neither's
// diagnostics (the one warning each reported on the old text is not
// called fixed).
func TestEditCheckNamesServersThatDoNotReport(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	script := filepath.Join(nvimtest.Root(), "pkg", "host", "testdata", "fakels.py")
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, ask := startVerify(t, bin, `{ verifyTimeout = 1 }`)
		attachServer(t, n, "quietls", "markdown", []string{python, script, "quiet"})
		attachServer(t, n, "crashls", "markdown", []string{python, script, "crash"})
		notes := filepath.Join(n.Dir, "notes.md")
		require.NoError(t, os.WriteFile(notes, []byte("# Notes\n\nsome text\n"), 0o644))
		n.Lua(`require("magenta.ui").open_file(...)`, notes)
		n.WaitFor("both servers to report", func() bool {
			var count int
			n.LuaResult(&count, `return #vim.diagnostic.get(vim.fn.bufnr(...))`, notes)
			return count == 2
		}, n.Messages)

		res, isErr := ask("edit_file", map[string]any{"path": "notes.md", "old_string": "some text", "new_string": "other text"})
		require.False(t, isErr, res)
		assert.Contains(t, res, "quietls had not reported on the new text after 1s: its diagnostics are not compared")
		assert.Contains(t, res, "crashls stopped while the edit was checked: its diagnostics are not compared.")
		assert.NotContains(t, res, "fixed")
		assert.NotContains(t, res, "introduced")
	})
}

// A buffer the user had listed but not loaded (:badd, a session) is
// loaded for the check and unloaded again, still listed; a file no server
// serves is loaded once (nothing attaches), wiped, and not loaded again
// for the next check.
func TestEditCheckLeavesBuffersAsTheyWere(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	script := filepath.Join(nvimtest.Root(), "pkg", "host", "testdata", "fakels.py")
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, ask := startVerify(t, bin, `{ verifyTimeout = 5 }`)
		attachServer(t, n, "echols", "markdown", []string{python, script, "echo"})
		listed, plain := filepath.Join(n.Dir, "listed.md"), filepath.Join(n.Dir, "plain.txt")
		require.NoError(t, os.WriteFile(listed, []byte("# Listed\n\nalpha\n"), 0o644))
		require.NoError(t, os.WriteFile(plain, []byte("alpha\n"), 0o644))
		n.Command("badd " + listed)
		require.Equal(t, "unloaded", bufferState(n, listed))
		n.Lua(`_G.plain_loads = 0
			vim.api.nvim_create_autocmd("BufReadPost", { pattern = "*.txt", callback = function() _G.plain_loads = _G.plain_loads + 1 end })`)
		view := userView(n)

		res, isErr := ask("edit_file", map[string]any{"path": "listed.md", "old_string": "alpha", "new_string": "beta"})
		require.False(t, isErr, res)
		assert.NotContains(t, res, "Diagnostics after", "the server's one warning stays where it was")
		assert.NotContains(t, res, "echols")
		n.WaitFor("the listed buffer to be unloaded again", func() bool { return bufferState(n, listed) == "unloaded" },
			func() string { return bufferState(n, listed) })
		var stillListed bool
		n.LuaResult(&stillListed, `return vim.fn.buflisted(vim.fn.bufnr(...)) == 1`, listed)
		assert.True(t, stillListed)

		for _, word := range []string{"beta", "gamma"} {
			res, isErr = ask("edit_file", map[string]any{"path": "plain.txt", "old_string": map[string]string{"beta": "alpha", "gamma": "beta"}[word], "new_string": word})
			require.False(t, isErr, res)
			assert.NotContains(t, res, "Diagnostics after")
			n.WaitFor("no buffer for plain.txt", func() bool { return bufferState(n, plain) == "none" }, func() string { return bufferState(n, plain) })
		}
		var loads int
		n.LuaResult(&loads, `return _G.plain_loads`)
		assert.Equal(t, 1, loads, "plain.txt was loaded for the first check only")
		assert.Equal(t, view, userView(n))
	})
}
