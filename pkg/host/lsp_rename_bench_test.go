package host_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/localfs"
	"github.com/magenta-nvim/magenta/pkg/capabilities/nvimbuf"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/host"
	"github.com/magenta-nvim/magenta/pkg/nvimtest"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// BenchmarkRenameSymbol renames a function used in all 20 files of a Go
// package through the rename_symbol tool and gopls, back and forth; 5 of
// the files are loaded in buffers (written through them), the rest on
// disk. Reports the median per rename (and of the request alone, the
// edit computed but not applied), the files changed, and the undo
// steps one rename added to each loaded buffer (1 each is the contract).
func BenchmarkRenameSymbol(b *testing.B) {
	bins := nvimtest.Binaries()
	if len(bins) == 0 {
		b.Skip("no Neovim")
	}
	server := os.Getenv("MAGENTA_GOPLS")
	if server == "" {
		server = filepath.Join(nvimtest.Root(), ".cache", "gobin", "gopls")
	}
	if _, err := os.Stat(server); err != nil {
		b.Skip("no gopls")
	}
	n := nvimtest.Start(b, bins[len(bins)-1])
	h := n.StartHost(host.Options{Version: "bench", NewProvider: func(config.Profile) (provider.Provider, error) { return nil, nil }})
	n.Setup(`{ profiles = { { name = "x", provider = "anthropic", model = "m" } } }`)
	n.Command("Magenta toggle")
	n.WaitForText("display", "# New thread")
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(n.Dir, name), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	write("go.mod", "module example.com/bench\n\ngo 1.22\n")
	write("f00.go", "package bench\n\n// Shared is used everywhere.\nfunc Shared(n int) int { return n + 1 }\n")
	for i := 1; i < 20; i++ {
		write(fmt.Sprintf("f%02d.go", i), fmt.Sprintf("package bench\n\nfunc use%d() int {\n\treturn Shared(%d) + Shared(%d)\n}\n", i, i, i+1))
	}
	n.Lua(`
		local server, root = ...
		vim.api.nvim_create_autocmd("FileType", { pattern = "go", callback = function(ev)
			local cfg = { name = "gopls", cmd = { server }, root_dir = root }
			if vim.lsp.start then vim.lsp.start(cfg, { bufnr = ev.buf }) else
				_G.gopls_id = _G.gopls_id or vim.lsp.start_client(cfg)
				vim.lsp.buf_attach_client(ev.buf, _G.gopls_id)
			end
		end })`, server, n.Dir)
	b.Cleanup(func() { stopServers(n) })
	var loaded []string
	for i := 15; i < 20; i++ {
		loaded = append(loaded, filepath.Join(n.Dir, fmt.Sprintf("f%02d.go", i)))
	}
	n.Lua(`for _, p in ipairs(...) do local buf = vim.fn.bufadd(p); vim.fn.bufload(buf) end`, loaded)
	undoSeqs := func() []int {
		var seqs []int
		n.LuaResult(&seqs, `
			local out = {}
			for _, p in ipairs(...) do
				local buf = vim.fn.bufnr(p)
				out[#out + 1] = vim.api.nvim_buf_call(buf, function() return vim.fn.undotree().seq_last end)
			end
			return out`, loaded)
		return seqs
	}
	env := &capabilities.Environment{Cwd: n.Dir, Files: nvimbuf.New(n.V, localfs.New()), LSP: h.LSP(), Diagnostics: h.LSP()}
	reg := tools.Builtin(tools.Config{})
	names := []string{"Shared", "Renamed"}
	rename := func(i int) tools.Result {
		input, _ := json.Marshal(map[string]string{"filePath": "f00.go", "symbol": names[i%2], "newName": names[(i+1)%2]})
		res := reg.Run(context.Background(), "rename_symbol", tools.Call{Input: input, Env: env})
		if res.IsError {
			b.Fatal(res.Text)
		}
		return res
	}
	// Warm up: gopls loads the package on the first request.
	rename(0)
	rename(1)
	f00 := filepath.Join(n.Dir, "f00.go")
	pos := capabilities.Position{Line: 3, Col: 5}
	var ds, asks []time.Duration
	var files, steps int
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// The server's part alone: the proposed edit, not applied.
		start := time.Now()
		if _, err := h.LSP().Rename(context.Background(), f00, pos, names[i%2], names[(i+1)%2]); err != nil {
			b.Fatal(err)
		}
		asks = append(asks, time.Since(start))
		before := undoSeqs()
		start = time.Now()
		res := rename(i)
		ds = append(ds, time.Since(start))
		after := undoSeqs()
		files = strings.Count(res.Text, "\n")
		steps = 0
		for j := range after {
			steps = max(steps, after[j]-before[j])
		}
	}
	b.ReportMetric(median(ds), "median-ms")
	b.ReportMetric(median(asks), "server-median-ms")
	b.ReportMetric(float64(files), "files")
	b.ReportMetric(float64(steps), "max-undo-steps/buffer")
}
