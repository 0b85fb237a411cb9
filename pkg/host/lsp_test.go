package host_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/nvimtest"
	"github.com/magenta-nvim/magenta/pkg/provider"
)

// gopls returns the language server for the LSP tests: MAGENTA_GOPLS
// (make test sets it), .cache/gobin/gopls, or gopls on PATH.
func gopls(t *testing.T) string {
	for _, p := range []string{os.Getenv("MAGENTA_GOPLS"), filepath.Join(nvimtest.Root(), ".cache", "gobin", "gopls")} {
		if p != "" {
			if _, err := os.Stat(p); err == nil {
				return p
			}
		}
	}
	if p, err := exec.LookPath("gopls"); err == nil {
		return p
	}
	t.Skip("gopls not found: `make test` installs it (go install golang.org/x/tools/gopls@v0.23.0)")
	return ""
}

const fixtureMain = `package main

// Greet returns a friendly greeting for name.
func Greet(name string) string { return "hello " + name }

func main() {
	_ = Greet("a")
	_ = "日本語 ünïcödé"; _ = Greet("b")
}
`

const fixtureBroken = `package main

var broken int = "not a number"
`

// startLSP writes a fixture module and configures gopls the way a user's
// config would: attach on FileType go (vim.lsp.start where it exists,
// start_client + buf_attach_client on 0.7).
func startLSP(t *testing.T, bin string) (*nvimtest.Nvim, func(tool string, input map[string]any) (string, bool)) {
	server := gopls(t)
	n, fake := startShell(t, bin)
	require.NoError(t, os.WriteFile(filepath.Join(n.Dir, "go.mod"), []byte("module example.com/fixture\n\ngo 1.22\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(n.Dir, "main.go"), []byte(fixtureMain), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(n.Dir, "broken.go"), []byte(fixtureBroken), 0o644))
	n.Lua(`
		local server, root = ...
		vim.api.nvim_create_autocmd("FileType", { pattern = "go", callback = function(ev)
			local cfg = { name = "gopls", cmd = { server }, root_dir = root }
			if vim.lsp.start then
				vim.lsp.start(cfg, { bufnr = ev.buf })
			else
				_G.gopls_id = _G.gopls_id or vim.lsp.start_client(cfg)
				vim.lsp.buf_attach_client(ev.buf, _G.gopls_id)
			end
		end })`, server, n.Dir)
	// gopls writes its cache under XDG_CACHE_HOME, inside the test's
	// directory: stop it before that directory is removed (cleanups run
	// last-registered first, so this runs before Neovim closes).
	t.Cleanup(func() { stopServers(n) })
	turn := 0
	ask := func(tool string, input map[string]any) (string, bool) {
		turn++
		n.FocusRole("input")
		n.Type("go")
		n.Keys("<CR>")
		call := fake.Next(t)
		call.ToolUse("tu_lsp"+string(rune('a'+turn)), tool, input)
		call.Stop(provider.StopToolUse)
		next := fake.Next(t)
		res, isErr := lastResult(t, next)
		next.Reply("done " + tool)
		n.WaitForText("display", "done "+tool)
		return res, isErr
	}
	return n, ask
}

func TestLSPToolsWithGopls(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, ask := startLSP(t, bin)

		res, isErr := ask("hover", map[string]any{"filePath": "main.go", "symbol": "Greet", "context": `_ = Greet("a")`})
		require.False(t, isErr, res)
		assert.Contains(t, res, "Greet returns a friendly greeting for name.")
		assert.Contains(t, res, "Definition: main.go:4:6")

		// A symbol after non-ASCII text on its line: UTF-16 (or the
		// negotiated encoding) columns still resolve to it.
		res, isErr = ask("hover", map[string]any{"filePath": "main.go", "symbol": "Greet", "context": `_ = Greet("b")`})
		require.False(t, isErr, res)
		assert.Contains(t, res, "Greet returns a friendly greeting")

		res, isErr = ask("find_references", map[string]any{"filePath": "main.go", "symbol": "Greet"})
		require.False(t, isErr, res)
		refs := strings.Split(res, "\n")
		require.Len(t, refs, 3, res)
		assert.Contains(t, res, "main.go:4:6")
		assert.Contains(t, res, "main.go:7:6")
		assert.True(t, strings.HasPrefix(refs[2], "main.go:8:"), res)

		// Diagnostics arrive asynchronously once broken.go is open.
		n.Lua(`require("magenta.ui").open_file(...)`, filepath.Join(n.Dir, "broken.go"))
		n.WaitFor("gopls to report the type error", func() bool {
			var count int
			n.LuaResult(&count, `return #vim.diagnostic.get()`)
			return count > 0
		}, n.Messages)
		res, _ = ask("diagnostics", map[string]any{"filePath": "broken.go"})
		assert.Contains(t, res, "error broken.go:3:")
		assert.Contains(t, res, "cannot use")
	})
}

// No server: a clear result after the bounded wait, never a hang. Here
// the configuration looks like it starts servers for text and Markdown
// files (FileType autocommands that mention LSP) but none attaches: the
// tools are offered, say so, and are offered no more for those types.
func TestLSPToolWithoutServer(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := startShell(t, bin)
		require.NoError(t, os.WriteFile(filepath.Join(n.Dir, "notes.txt"), []byte("a word here\n"), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(n.Dir, "README.md"), []byte("# Words\n"), 0o644))
		n.Lua(`for _, ft in ipairs({ "text", "markdown" }) do
			vim.api.nvim_create_autocmd("FileType", { pattern = ft, desc = "lsp for prose (not installed)", callback = function() end })
		end`)
		ask := func(tool string, input map[string]any) (offered bool, res string, isErr bool) {
			n.FocusRole("input")
			n.Type("use " + tool)
			n.Keys("<CR>")
			call := fake.Next(t)
			for _, spec := range call.Request.Tools {
				offered = offered || spec.Name == tool
			}
			call.ToolUse("tu_"+tool, tool, input)
			call.Stop(provider.StopToolUse)
			next := fake.Next(t)
			res, isErr = lastResult(t, next)
			next.Reply("ok " + tool)
			n.WaitForText("display", "ok "+tool)
			return offered, res, isErr
		}

		offered, res, isErr := ask("hover", map[string]any{"filePath": "notes.txt", "symbol": "word"})
		assert.True(t, offered)
		assert.True(t, isErr)
		assert.Contains(t, res, "no language server for")
		assert.Contains(t, res, "no language server is attached")

		// With no server attached there is nobody to wait for.
		offered, res, isErr = ask("diagnostics", map[string]any{"filePath": "README.md"})
		assert.True(t, offered, "Markdown files may still get a server")
		assert.False(t, isErr, res)
		assert.Contains(t, res, "No diagnostics: no language server is attached to README.md")

		// Neither type got a server: the tools are no longer offered.
		offered, res, isErr = ask("find_references", map[string]any{"filePath": "notes.txt", "symbol": "word"})
		assert.False(t, offered)
		assert.True(t, isErr)
		assert.Contains(t, res, "tool find_references is not available")
	})
}

// The diagnostics tool never answers before the servers have spoken: asked
// right after the file is opened it waits for gopls and lists the error;
// asked right after an edit that fixes it, it waits for the new report and
// lists none.
func TestDiagnosticsWaitForTheServersReport(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, ask := startLSP(t, bin)
		// A running server (its cold start is not what is measured here):
		// hover on main.go answers, then broken.go is opened and asked
		// about at once.
		res, isErr := ask("hover", map[string]any{"filePath": "main.go", "symbol": "Greet"})
		require.False(t, isErr, res)
		n.Lua(`require("magenta.ui").open_file(...)`, filepath.Join(n.Dir, "broken.go"))
		res, isErr = ask("diagnostics", map[string]any{"filePath": "broken.go"})
		require.False(t, isErr, res)
		assert.Contains(t, res, "error broken.go:3:")
		assert.Contains(t, res, "cannot use")
		assert.NotContains(t, res, "Not reported yet")

		res, isErr = ask("edit_file", map[string]any{"path": "broken.go", "old_string": `var broken int = "not a number"`, "new_string": `var broken int = 42`})
		require.False(t, isErr, res)
		res, isErr = ask("diagnostics", map[string]any{"filePath": "broken.go"})
		require.False(t, isErr, res)
		assert.NotContains(t, res, "error broken.go", "the fixed error is gone")
		assert.NotContains(t, res, "Not reported yet")
	})
}

// stopServers stops every LSP client and waits until they are gone.
func stopServers(n *nvimtest.Nvim) {
	n.Lua(`
		local clients = vim.lsp.get_clients and vim.lsp.get_clients() or vim.lsp.get_active_clients()
		for _, c in ipairs(clients) do
			if vim.fn.has("nvim-0.11") == 1 then c:stop() else c.stop() end
		end`)
	n.WaitFor("language servers to stop", func() bool {
		var alive int
		n.LuaResult(&alive, `return #(vim.lsp.get_clients and vim.lsp.get_clients() or vim.lsp.get_active_clients())`)
		return alive == 0
	}, n.Messages)
}

// The LSP tools are offered only while a language server runs: none at
// first, then hover, find_references and diagnostics once gopls attaches
// to an opened file.
func TestLSPToolsAreOfferedOnlyWhileAServerRuns(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := startShell(t, bin)
		server := gopls(t)
		require.NoError(t, os.WriteFile(filepath.Join(n.Dir, "go.mod"), []byte("module example.com/fixture\n\ngo 1.22\n"), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(n.Dir, "main.go"), []byte(fixtureMain), 0o644))
		offered := func() []string {
			n.FocusRole("input")
			n.Type("which tools?")
			n.Keys("<CR>")
			call := fake.Next(t)
			var names []string
			for _, tool := range call.Request.Tools {
				names = append(names, tool.Name)
			}
			call.Reply("these")
			return names
		}
		names := offered()
		assert.Contains(t, names, "bash_command")
		assert.NotContains(t, names, "hover")
		assert.NotContains(t, names, "find_references")
		assert.NotContains(t, names, "diagnostics")

		n.Lua(`
			local server, root, file = ...
			local cfg = { name = "gopls", cmd = { server }, root_dir = root }
			require("magenta.ui").open_file(file)
			local buf = vim.fn.bufnr(file)
			if vim.lsp.start then
				vim.lsp.start(cfg, { bufnr = buf })
			else
				vim.lsp.buf_attach_client(buf, vim.lsp.start_client(cfg))
			end`, server, n.Dir, filepath.Join(n.Dir, "main.go"))
		t.Cleanup(func() { stopServers(n) })
		n.WaitFor("gopls to run", func() bool {
			var running bool
			n.LuaResult(&running, `return require('magenta.lsp').running()`)
			return running
		}, n.Messages)
		names = offered()
		assert.Contains(t, names, "hover")
		assert.Contains(t, names, "find_references")
		assert.Contains(t, names, "diagnostics")
	})
}
