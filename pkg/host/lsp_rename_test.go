package host_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/host"
	"github.com/magenta-nvim/magenta/pkg/nvimtest"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
)

// startWithHost is startShell that also returns the host, whose LSP
// adapter some tests ask directly.
func startWithHost(t *testing.T, bin string) (*nvimtest.Nvim, *providertest.Fake, *host.Host) {
	n := nvimtest.Start(t, bin)
	fake := providertest.New()
	h := n.StartHost(host.Options{
		Version:     "test",
		NewProvider: func(config.Profile) (provider.Provider, error) { return fake, nil },
	})
	n.Setup(`{ shell = { logRoot = "` + filepath.Join(n.Dir, "logs") + `" }, sandbox = { enabled = false } }`)
	n.Command("Magenta toggle")
	n.WaitForText("display", "# New thread")
	return n, fake, h
}

const fixtureOther = `package main

var greeting = Greet("c")
`

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(data)
}

// bufferOf returns the loaded buffer of path (0 when none).
func bufferOf(n *nvimtest.Nvim, path string) int {
	var buf int
	n.LuaResult(&buf, `
		for _, b in ipairs(vim.api.nvim_list_bufs()) do
			if vim.api.nvim_buf_is_loaded(b) and vim.api.nvim_buf_get_name(b) == ... then return b end
		end
		return 0`, path)
	return buf
}

// undo runs one :undo in buf and returns its text.
func undo(n *nvimtest.Nvim, buf int) string {
	n.Lua(`local buf = ...; vim.api.nvim_buf_call(buf, function() vim.cmd("silent undo") end)`, buf)
	return n.Text(buf)
}

// rename_symbol across three files: greet.go (loaded by the tool), main.go
// (open in a window with an unsaved change) and other.go (on disk only).
// All three are renamed, the unsaved text is kept, and one undo in each
// buffer takes its file back. A name gopls refuses changes nothing and
// says why.
func TestRenameSymbolAcrossFiles(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := startShell(t, bin)
		goModule(t, n.Dir, map[string]string{"greet.go": fixtureGreet, "main.go": fixtureUser, "other.go": fixtureOther})
		lazyGopls(t, n)
		greet, main, other := filepath.Join(n.Dir, "greet.go"), filepath.Join(n.Dir, "main.go"), filepath.Join(n.Dir, "other.go")
		n.Lua(`require("magenta.ui").open_file(...)`, main)
		mainBuf := bufferOf(n, main)
		require.NotZero(t, mainBuf)
		n.Lua(`vim.api.nvim_buf_set_lines(..., 1, 1, false, { "", "// an unsaved note" })`, mainBuf)

		turn := askTool(t, n, fake, "rename_symbol", map[string]any{"filePath": "greet.go", "symbol": "Greet", "newName": "1bad"})
		require.True(t, turn.isErr, turn.result)
		assert.Contains(t, turn.result, "gopls refused the rename: ")
		assert.Contains(t, turn.result, "1bad")
		assert.Contains(t, turn.result, "Nothing was changed.")
		assert.Equal(t, fixtureGreet, readFile(t, greet))

		turn = askTool(t, n, fake, "rename_symbol", map[string]any{"filePath": "greet.go", "symbol": "Greet", "context": "func Greet", "newName": "Hello"})
		require.False(t, turn.isErr, turn.result)
		assert.Contains(t, turn.result, "Renamed Greet to Hello in 3 files (gopls):")
		assert.Contains(t, turn.result, "\nmain.go +2 -2")
		assert.Contains(t, turn.result, "\nother.go +1 -1")
		assert.Contains(t, turn.result, "\ngreet.go +")

		mainText := n.Text(mainBuf)
		assert.Contains(t, mainText, "// an unsaved note", "the unsaved change is kept")
		assert.Contains(t, mainText, `_ = Hello("a")`)
		assert.Contains(t, mainText, `_ = Hello("b")`)
		assert.Contains(t, readFile(t, other), `Hello("c")`)
		assert.Contains(t, readFile(t, greet), "func Hello(name string) string {")
		assert.NotContains(t, readFile(t, greet), "Greet(")

		// One undo per buffer takes each file back whole; the user's own
		// change stays, an undo step of its own.
		mainText = undo(n, mainBuf)
		assert.Contains(t, mainText, `_ = Greet("a")`)
		assert.Contains(t, mainText, `_ = Greet("b")`)
		assert.Contains(t, mainText, "// an unsaved note")
		greetBuf := bufferOf(n, greet)
		require.NotZero(t, greetBuf, "the tool loaded greet.go into a buffer")
		greetText := undo(n, greetBuf)
		assert.NotContains(t, greetText, "Hello")
		assert.Contains(t, greetText, "func Greet(name string) string {")
	})
}

// A position the file no longer holds the symbol at is not sent: the
// adapter says the symbol moved. (Through the tool the window between
// reading the file and asking is milliseconds; the adapter is asked
// directly with a position read from an older text.)
func TestRenameAtAStalePosition(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, _, h := startWithHost(t, bin)
		goModule(t, n.Dir, map[string]string{"greet.go": fixtureGreet, "main.go": fixtureUser})
		lazyGopls(t, n)
		main := filepath.Join(n.Dir, "main.go")
		// Greet("a") is on line 4 (0-based 3), column 5 in the file as
		// written; the user then adds a line above it.
		n.Lua(`require("magenta.ui").open_file(...)`, main)
		n.Lua(`vim.api.nvim_buf_set_lines(..., 1, 1, false, { "// moved" })`, bufferOf(n, main))
		_, err := h.LSP().Rename(context.Background(), main, capabilities.Position{Line: 3, Col: 5}, "Greet", "Hello")
		require.Error(t, err)
		assert.True(t, errors.Is(err, capabilities.ErrStalePosition), err.Error())
		assert.Contains(t, err.Error(), "Greet is no longer at line 4, column 6 of "+main)
		assert.Equal(t, fixtureUser, readFile(t, main))

		// At its new place the same request goes through.
		edit, err := h.LSP().Rename(context.Background(), main, capabilities.Position{Line: 4, Col: 5}, "Greet", "Hello")
		require.NoError(t, err)
		assert.Equal(t, "gopls", edit.Server)
		assert.Len(t, edit.Files, 2)
	})
}

// format_file applies gopls's formatting as one edit, and says so when
// there is nothing to do.
func TestFormatFile(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := startShell(t, bin)
		ugly := "package main\n\nfunc  ugly( a int )  int {\nreturn a}\n"
		goModule(t, n.Dir, map[string]string{"ugly.go": ugly})
		lazyGopls(t, n)
		turn := askTool(t, n, fake, "format_file", map[string]any{"filePath": "ugly.go"})
		require.False(t, turn.isErr, turn.result)
		assert.Contains(t, turn.result, "Formatted ugly.go with gopls:\nugly.go +")
		path := filepath.Join(n.Dir, "ugly.go")
		assert.Equal(t, "package main\n\nfunc ugly(a int) int {\n\treturn a\n}\n", readFile(t, path))
		assert.Equal(t, strings.TrimSuffix(ugly, "\n"), undo(n, bufferOf(n, path)), "one undo step")
		n.Lua(`local buf = ...; vim.api.nvim_buf_call(buf, function() vim.cmd("silent redo | silent write") end)`, bufferOf(n, path))

		turn = askTool(t, n, fake, "format_file", map[string]any{"filePath": "ugly.go"})
		require.False(t, turn.isErr, turn.result)
		assert.Equal(t, "ugly.go is formatted already: gopls changed nothing.", turn.result)
	})
}

// A server that exits in the middle of a request is noticed at once:
// the call says so instead of waiting out the request's bound (Neovim
// drops the callbacks of an exited client's requests).
func TestLSPServerCrashingMidRequest(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := startShell(t, bin)
		require.NoError(t, os.WriteFile(filepath.Join(n.Dir, "notes.md"), []byte("# Some words\n"), 0o644))
		startFakeLSP(t, n, "crash", "markdown")
		start := time.Now()
		turn := askTool(t, n, fake, "document_symbols", map[string]any{"filePath": "notes.md"})
		require.True(t, turn.isErr, turn.result)
		assert.Contains(t, turn.result, "the language server fake-crash exited before it answered")
		assert.Less(t, time.Since(start), capabilities.LSPRequestTimeout/2)
	})
}

// Two servers on one file: document_symbols lists both servers' symbols.
func TestDocumentSymbolsOfTwoServers(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := startShell(t, bin)
		goModule(t, n.Dir, map[string]string{"greet.go": fixtureGreet})
		lazyGopls(t, n)
		startFakeLSP(t, n, "symbols", "go")
		turn := askTool(t, n, fake, "document_symbols", map[string]any{"filePath": "greet.go"})
		require.False(t, turn.isErr, turn.result)
		assert.Contains(t, turn.result, "function Greet func(name string) string (line 4)")
		assert.Contains(t, turn.result, "variable FakeSymbol (line 1)")
	})
}

// startFakeLSP configures the test binary's fake server (mode) for
// files of type ft, as a user's FileType autocommand would.
func startFakeLSP(t *testing.T, n *nvimtest.Nvim, mode, ft string) {
	self, err := os.Executable()
	require.NoError(t, err)
	n.Lua(`
		local self, mode, ft, root, env = ...
		vim.api.nvim_create_autocmd("FileType", { pattern = ft, callback = function(ev)
			local cfg = { name = "fake-" .. mode, cmd = { self }, root_dir = root, cmd_env = { [env] = mode } }
			if vim.lsp.start then
				vim.lsp.start(cfg, { bufnr = ev.buf })
			else
				_G.fake_ids = _G.fake_ids or {}
				_G.fake_ids[mode] = _G.fake_ids[mode] or vim.lsp.start_client(cfg)
				vim.lsp.buf_attach_client(ev.buf, _G.fake_ids[mode])
			end
		end })`, self, mode, ft, n.Dir, fakeLSPEnv)
	t.Cleanup(func() { stopServers(n) })
}
