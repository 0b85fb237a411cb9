package host_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/nvimtest"
)

// A package of two files: Greet is defined in greet.go and used twice in
// main.go.
const (
	fixtureGreet = `package main

// Greet returns a friendly greeting for name.
func Greet(name string) string {
	return "hello " + name
}

// Greeter greets with a prefix.
type Greeter struct {
	Prefix string
}

// Say greets name.
func (g Greeter) Say(name string) string { return g.Prefix + Greet(name) }
`
	fixtureUser = `package main

func main() {
	_ = Greet("a")
	_ = Greet("b")
}
`
)

// definition, document_symbols and workspace_symbols through the real
// host and gopls. The server starts lazily: before it runs, the tools
// that load a file are offered (its capabilities are unknown until it
// starts) and workspace_symbols — which has no file to start it with —
// is not; once it runs, every tool gopls supports is.
func TestLSPDefinitionAndSymbols(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := startShell(t, bin)
		goModule(t, n.Dir, map[string]string{"greet.go": fixtureGreet, "main.go": fixtureUser})
		lazyGopls(t, n)

		turn := askTool(t, n, fake, "definition", map[string]any{"filePath": "main.go", "symbol": "Greet", "context": `Greet("b")`})
		if nvimtest.Version(t, bin) != "nvim-0.7.2" { // 0.7 offers for any configured type
			assert.NotContains(t, turn.offered, "workspace_symbols", "no server runs yet")
		}
		for _, name := range []string{"definition", "document_symbols", "rename_symbol", "format_file"} {
			assert.Contains(t, turn.offered, name)
		}
		require.False(t, turn.isErr, turn.result)
		assert.Contains(t, turn.result, "greet.go:4:6\n")
		assert.Contains(t, turn.result, "3\t// Greet returns a friendly greeting for name.")
		assert.Contains(t, turn.result, "4\tfunc Greet(name string) string {")

		// A definition outside the workspace is named without its lines
		// (reading them would ask).
		turn = askTool(t, n, fake, "definition", map[string]any{"filePath": "greet.go", "symbol": "string", "context": "name string"})
		require.False(t, turn.isErr, turn.result)
		assert.Contains(t, turn.result, "builtin.go")
		assert.Contains(t, turn.result, "lines not shown")

		turn = askTool(t, n, fake, "document_symbols", map[string]any{"filePath": "greet.go"})
		require.False(t, turn.isErr, turn.result)
		assert.Contains(t, turn.result, "function Greet func(name string) string (line 4)")
		assert.Contains(t, turn.result, "struct Greeter struct{...} (line 9)")
		assert.Contains(t, turn.result, "\n  field Prefix string (line 10)", "children are indented under their parent")
		assert.Contains(t, turn.result, "method (Greeter).Say func(name string) string (line 14)")

		turn = askTool(t, n, fake, "workspace_symbols", map[string]any{"query": "Greeter"})
		assert.Contains(t, turn.offered, "workspace_symbols", "gopls runs now")
		require.False(t, turn.isErr, turn.result)
		assert.Contains(t, turn.result, "struct Greeter in example.com/fixture — greet.go:9:6")
		assert.Contains(t, turn.result, "method Greeter.Say in example.com/fixture — greet.go:14:18")
		assert.NotContains(t, turn.result, filepath.Join(n.Dir, "greet.go"), "paths relative to the workspace")
	})
}

// A running server offers the tools of the requests it advertises and no
// others: the fake server lists symbols but cannot rename or format.
func TestLSPToolsFollowTheRunningServersCapabilities(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := startShell(t, bin)
		notes := filepath.Join(n.Dir, "notes.md")
		require.NoError(t, os.WriteFile(notes, []byte("# Notes\n"), 0o644))
		startFakeLSP(t, n, "symbols", "markdown")
		n.Lua(`require("magenta.ui").open_file(...)`, notes)
		n.WaitFor("the fake server to attach", func() bool { return attached(n, notes) }, n.Messages)
		turn := askTool(t, n, fake, "document_symbols", map[string]any{"filePath": "notes.md"})
		require.False(t, turn.isErr, turn.result)
		assert.Equal(t, "variable FakeSymbol (line 1)", turn.result)
		assert.Contains(t, turn.offered, "document_symbols")
		assert.Contains(t, turn.offered, "hover", "hover and find_references are offered while any server runs, as before")
		for _, name := range []string{"definition", "workspace_symbols", "rename_symbol", "format_file"} {
			assert.NotContains(t, turn.offered, name)
		}
	})
}

// attached reports whether a language server is attached to path's buffer.
func attached(n *nvimtest.Nvim, path string) bool {
	var ok bool
	n.LuaResult(&ok, `
		local buf = vim.fn.bufnr(...)
		local clients = vim.lsp.get_clients and vim.lsp.get_clients({ bufnr = buf }) or vim.lsp.buf_get_clients(buf)
		return next(clients) ~= nil`, path)
	return ok
}
