package host_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/host"
	"github.com/magenta-nvim/magenta/pkg/nvimtest"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// The LSP tools answer as soon as the servers have, never claim "No
// diagnostics." before they have reported, and are offered for a server
// the configuration starts lazily. gopls is started by the user's
// configuration, as a user's would be: lazyGopls.

// goModule writes a Go module (go.mod and files) into dir.
func goModule(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/fixture\n\ngo 1.22\n"), 0o644))
	for name, text := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
}

// lazyGopls configures gopls the way a user's configuration (a Lua file)
// does, lspconfig-style: a FileType autocommand starts it when a Go
// buffer appears — vim.lsp.start on 0.8+, start_client and
// buf_attach_client on 0.7. No server runs before.
func lazyGopls(t *testing.T, n *nvimtest.Nvim) {
	t.Helper()
	config := filepath.Join(t.TempDir(), "gopls.lua")
	require.NoError(t, os.WriteFile(config, []byte(fmt.Sprintf(`
local server, root = %q, %q
vim.api.nvim_create_autocmd("FileType", {
  pattern = "go",
  callback = function(ev)
    local cfg = { name = "gopls", cmd = { server }, root_dir = root }
    if vim.lsp.start then
      vim.lsp.start(cfg, { bufnr = ev.buf })
    else
      _G.gopls_id = _G.gopls_id or vim.lsp.start_client(cfg)
      vim.lsp.buf_attach_client(ev.buf, _G.gopls_id)
    end
  end,
})
`, gopls(t), n.Dir)), 0o644))
	n.Command("luafile " + config)
	t.Cleanup(func() { stopServers(n) })
}

// modelTurn is one scripted model turn that calls a tool: the tools the
// request offered, and the call's result.
type modelTurn struct {
	offered []string
	result  string
	isErr   bool
}

// askTool sends a message; the model calls tool with input, then replies.
func askTool(t *testing.T, n *nvimtest.Nvim, fake *providertest.Fake, tool string, input map[string]any) modelTurn {
	t.Helper()
	id := asked.Add(1)
	n.FocusRole("input")
	n.Type("use " + tool)
	n.Keys("<CR>")
	call := fake.Next(t)
	var turn modelTurn
	for _, spec := range call.Request.Tools {
		turn.offered = append(turn.offered, spec.Name)
	}
	call.ToolUse(fmt.Sprintf("tu_ready_%d", id), tool, input)
	call.Stop(provider.StopToolUse)
	next := fake.Next(t)
	turn.result, turn.isErr = lastResult(t, next)
	done := fmt.Sprintf("done %s %d", tool, id)
	next.Reply(done)
	n.WaitForText("display", done)
	return turn
}

// asked numbers the calls askTool makes (tests may run in parallel).
var asked atomic.Int64

// countReports counts gopls's diagnostics reports in _G.reports, by a
// wrapper around the handler magenta's own wraps later: the test knows
// when the first report came without magenta watching.
func countReports(n *nvimtest.Nvim) {
	n.Lua(`
		_G.reports = 0
		local method = "textDocument/publishDiagnostics"
		local handler = vim.lsp.handlers[method]
		vim.lsp.handlers[method] = function(...)
			_G.reports = _G.reports + 1
			return handler(...)
		end`)
}

func waitForFirstReport(n *nvimtest.Nvim) {
	n.WaitFor("gopls to report", func() bool {
		var reports int
		n.LuaResult(&reports, `return _G.reports`)
		return reports > 0
	}, n.Messages)
}

// Defect: the every-buffer form said "No diagnostics." while the server of
// a freshly opened file was still starting (attached to nothing yet).
func TestDiagnosticsOfEveryBufferWaitForAStartingServer(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := startShell(t, bin)
		goModule(t, n.Dir, map[string]string{"main.go": fixtureMain, "broken.go": fixtureBroken})
		lazyGopls(t, n)
		// The user opens broken.go (gopls starts) and the model asks at once.
		n.Lua(`require("magenta.ui").open_file(...)`, filepath.Join(n.Dir, "broken.go"))
		turn := askTool(t, n, fake, "diagnostics", map[string]any{})
		require.False(t, turn.isErr, turn.result)
		assert.Contains(t, turn.result, "error broken.go:3:")
		assert.Contains(t, turn.result, "cannot use")
		assert.NotContains(t, turn.result, "No diagnostics")
		assert.NotContains(t, turn.result, "Not reported yet")
	})
}

// Defect: on 0.12 a file magenta loaded itself (no change since its
// didOpen, version 0, which gopls omits) looked unreported until the
// 10-second bound.
func TestDiagnosticsOfAFileMagentaOpensAnswerOnTheFirstReport(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := startShell(t, bin)
		goModule(t, n.Dir, map[string]string{"main.go": fixtureMain})
		lazyGopls(t, n)
		turn := askTool(t, n, fake, "diagnostics", map[string]any{"filePath": "main.go"})
		require.False(t, turn.isErr, turn.result)
		assert.Equal(t, "No diagnostics.", turn.result)
	})
}

// Defect: a clean file opened before the host started was reported on
// once, unseen, so the tool waited out its bound. setup() follows the
// reports from the first attach on. A setup() called after the report
// cannot know it: the tool says so at once instead of waiting for a
// report that does not come again.
func TestDiagnosticsCountAReportMadeBeforeTheHostStarted(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		for _, c := range []struct {
			name  string
			early bool // setup() before the file is opened
		}{{"setup first", true}, {"setup after the report", false}} {
			t.Run(c.name, func(t *testing.T) {
				n := nvimtest.Start(t, bin)
				fake := providertest.New()
				n.StartHost(host.Options{
					Version:     "test",
					NewProvider: func(config.Profile) (provider.Provider, error) { return fake, nil },
				})
				goModule(t, n.Dir, map[string]string{"main.go": fixtureMain})
				lazyGopls(t, n)
				countReports(n)
				if c.early {
					n.Setup(testOptions)
				}
				n.Command("edit main.go")
				waitForFirstReport(n)
				if !c.early {
					n.Setup(testOptions)
				}
				n.Command("Magenta toggle")
				n.WaitForText("display", "# New thread")
				turn := askTool(t, n, fake, "diagnostics", map[string]any{"filePath": "main.go"})
				require.False(t, turn.isErr, turn.result)
				if c.early {
					assert.Equal(t, "No diagnostics.", turn.result)
					return
				}
				assert.Contains(t, turn.result, "Unknown what gopls ("+filepath.Join(n.Dir, "main.go")+") reported")
				assert.NotContains(t, turn.result, "Not reported yet", "no wait for a report that does not come again")
			})
		}
	})
}

// Asked right after the server attached to a file the user opened (so
// right after setup()'s hook began following the reports), the tool waits
// for the server's first report: nothing was missed.
func TestDiagnosticsAskedRightAfterTheServerAttachedWait(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := startShell(t, bin)
		goModule(t, n.Dir, map[string]string{"main.go": fixtureMain, "broken.go": fixtureBroken})
		lazyGopls(t, n)
		n.Lua(`require("magenta.ui").open_file(...)`, filepath.Join(n.Dir, "broken.go"))
		n.WaitFor("gopls to attach", func() bool {
			var attached bool
			n.LuaResult(&attached, `
				local buf = vim.fn.bufnr(...)
				local clients = vim.lsp.get_clients and vim.lsp.get_clients({ bufnr = buf }) or vim.lsp.buf_get_clients(buf)
				return next(clients) ~= nil`, filepath.Join(n.Dir, "broken.go"))
			return attached
		}, n.Messages)
		turn := askTool(t, n, fake, "diagnostics", map[string]any{"filePath": "broken.go"})
		require.False(t, turn.isErr, turn.result)
		assert.Contains(t, turn.result, "error broken.go:3:")
		assert.NotContains(t, turn.result, "Unknown")
		assert.NotContains(t, turn.result, "Not reported yet")
	})
}

// userView is what of the user's layout a tool must leave alone: the
// windows and their buffers, the current window, its alternate file and
// jump list.
func userView(n *nvimtest.Nvim) string {
	var view string
	n.LuaResult(&view, `
		local wins = {}
		for _, w in ipairs(vim.api.nvim_list_wins()) do
			wins[#wins + 1] = w .. "=" .. vim.api.nvim_win_get_buf(w)
		end
		return table.concat(wins, " ") .. " current=" .. vim.api.nvim_get_current_win()
			.. " alternate=" .. vim.fn.bufnr("#") .. " jumps=" .. #vim.fn.getjumplist()[1]`)
	return view
}

// Defect: with the server started lazily (no Go file open, so none runs),
// the LSP tools were missing from the first request. They are offered for
// a configured server, and the first call starts it by loading the file
// into a hidden buffer.
func TestLSPToolsAreOfferedForALazilyStartedServer(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := startShell(t, bin)
		goModule(t, n.Dir, map[string]string{"main.go": fixtureMain})
		lazyGopls(t, n)
		// No Go file is open: the every-buffer form says so, and how to
		// start the server.
		turn := askTool(t, n, fake, "diagnostics", map[string]any{})
		assert.Contains(t, turn.offered, "hover")
		assert.Contains(t, turn.offered, "find_references")
		assert.Contains(t, turn.offered, "diagnostics")
		assert.Equal(t, tools.NoBufferServed, turn.result)

		n.FocusRole("input")
		before := userView(n)
		turn = askTool(t, n, fake, "hover", map[string]any{"filePath": "main.go", "symbol": "Greet", "context": `_ = Greet("a")`})
		require.False(t, turn.isErr, turn.result)
		assert.Contains(t, turn.result, "Greet returns a friendly greeting for name.")
		n.FocusRole("input")
		assert.Equal(t, before, userView(n), "the file was loaded without touching the user's windows")
	})
}

// vim.lsp.enable() (0.11+) configures a server as well.
func TestLSPToolsAreOfferedForAnEnabledServer(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		var enable bool
		n, fake := startShell(t, bin)
		n.LuaResult(&enable, `return vim.lsp.enable ~= nil`)
		if !enable {
			t.Skip("vim.lsp.enable is 0.11+")
		}
		goModule(t, n.Dir, map[string]string{"main.go": fixtureMain})
		n.Lua(`
			vim.lsp.config("gopls", { cmd = { ... }, filetypes = { "go" }, root_markers = { "go.mod" } })
			vim.lsp.enable("gopls")`, gopls(t))
		t.Cleanup(func() { stopServers(n) })
		turn := askTool(t, n, fake, "find_references", map[string]any{"filePath": "main.go", "symbol": "Greet"})
		assert.Contains(t, turn.offered, "find_references")
		require.False(t, turn.isErr, turn.result)
		assert.Contains(t, turn.result, "main.go:4:6")
	})
}

// A configured server whose files the workspace does not hold offers
// nothing (0.7 cannot name a file's type without setting a buffer's).
func TestLSPToolsAreNotOfferedWithoutTheServersFiles(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		if nvimtest.Version(t, bin) == "nvim-0.7.2" {
			t.Skip("0.7 does not look at the workspace's file types")
		}
		n, fake := startShell(t, bin)
		require.NoError(t, os.WriteFile(filepath.Join(n.Dir, "notes.txt"), []byte("words\n"), 0o644))
		lazyGopls(t, n)
		turn := askTool(t, n, fake, "thread_title", map[string]any{"title": "Notes"})
		assert.NotContains(t, turn.offered, "hover")
		assert.NotContains(t, turn.offered, "diagnostics")
	})
}

// Defect: a tool the request did not offer ran anyway when the model
// called it. It must not run; the model is told it is not available.
func TestAToolNotOfferedDoesNotRun(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := startShell(t, bin)
		main := filepath.Join(n.Dir, "main.go")
		require.NoError(t, os.WriteFile(main, []byte(fixtureMain), 0o644))
		turn := askTool(t, n, fake, "hover", map[string]any{"filePath": "main.go", "symbol": "Greet"})
		assert.NotContains(t, turn.offered, "hover")
		assert.True(t, turn.isErr)
		assert.Contains(t, turn.result, "tool hover is not available")
		assert.Contains(t, turn.result, "it did not run")
		var loaded int
		n.LuaResult(&loaded, `return vim.fn.bufloaded(...)`, main)
		assert.Equal(t, 0, loaded, "the tool did not load the file")
	})
}
