package host_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/lsp"
	"github.com/magenta-nvim/magenta/pkg/nvimtest"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
)

// attachUI attaches a UI to the headless Neovim (its redraws dropped):
// without one, Neovim never stops at a "Press ENTER" prompt.
func attachUI(t *testing.T, n *nvimtest.Nvim) {
	t.Helper()
	n.V.RegisterHandler("redraw", func(...[]any) {})
	require.NoError(t, n.V.AttachUI(160, 50, map[string]any{"ext_linegrid": true}))
	// A prompt left standing would hold the closing of the host and
	// Neovim (cleanups run last first): dismiss it before.
	t.Cleanup(func() { _, _ = n.V.Input("<Esc>") })
}

// Defect: another plugin's message printed as a tool loads a file (as
// lspconfig prints its deprecation warnings) makes Neovim stop at "Press
// ENTER" in the middle of the tool, and the tool failed with "context
// deadline exceeded". It says Neovim did not answer, why, and what to do.
// The wait is the real request timeout, so the versions run in parallel.
func TestLSPToolSaysAPromptBlocksNeovim(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		t.Parallel()
		n, fake := startShell(t, bin)
		require.NoError(t, os.WriteFile(filepath.Join(n.Dir, "main.go"), []byte(fixtureMain), 0o644))
		n.Lua(`vim.api.nvim_create_autocmd("FileType", {
			pattern = "go",
			group = vim.api.nvim_create_augroup("lspconfig", { clear = false }),
			callback = function()
				vim.notify("lspconfig: this way of setting up servers is deprecated\nSee :help lspconfig-nvim-0.11\nand update your configuration", vim.log.levels.WARN)
			end,
		})`)
		attachUI(t, n)

		n.Type("hover please")
		n.Keys("<CR>")
		call := fake.Next(t)
		// The next request comes after the request timeout, later than
		// Next waits: hand it over on a channel.
		requests := make(chan *providertest.Call, 1)
		fake.Serve(func(c *providertest.Call) { requests <- c })
		call.ToolUse("tu_prompt", "hover", map[string]any{"filePath": "main.go", "symbol": "Greet"})
		call.Stop(provider.StopToolUse)
		var next *providertest.Call
		select {
		case next = <-requests:
		case <-time.After(lsp.RequestTimeout + 15*time.Second):
			t.Fatal("the tool never ended: Neovim's prompt held it")
		}
		res, isErr := lastResult(t, next)
		assert.True(t, isErr)
		assert.Contains(t, res, "Neovim did not answer within "+lsp.RequestTimeout.String())
		assert.Contains(t, res, `"Press ENTER" prompt`)
		assert.Contains(t, res, "call the tool again")
		assert.NotContains(t, res, "context deadline exceeded")

		// The user answers the prompt; Neovim and magenta go on.
		_, err := n.V.Input("<CR>")
		require.NoError(t, err)
		next.Reply("understood")
		n.WaitForText("display", "understood")
	})
}
