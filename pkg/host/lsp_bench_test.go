package host_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/localfs"
	"github.com/magenta-nvim/magenta/pkg/capabilities/nvimbuf"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/host"
	"github.com/magenta-nvim/magenta/pkg/lspverify"
	"github.com/magenta-nvim/magenta/pkg/nvimtest"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

func median(ds []time.Duration) float64 {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return float64(ds[len(ds)/2].Microseconds()) / 1000
}

// BenchmarkHover compares a hover round trip through the hover tool
// ("tool": hover plus definition and type definition, as the tool asks),
// through the adapter alone ("adapter": one hover request), and the same
// hover made directly with vim.lsp.buf_request_sync from Lua over one RPC
// ("direct"), against gopls on the fixture module. Medians in ms.
func BenchmarkHover(b *testing.B) {
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
	n := nvimtest.Start(b, bins[0])
	h := n.StartHost(host.Options{Version: "bench", NewProvider: func(config.Profile) (provider.Provider, error) { return nil, nil }})
	n.Setup(`{ profiles = { { name = "x", provider = "anthropic", model = "m" } } }`)
	n.Command("Magenta toggle") // attach the host
	n.WaitForText("display", "# New thread")
	for name, text := range map[string]string{"go.mod": "module example.com/fixture\n\ngo 1.22\n", "main.go": fixtureMain} {
		if err := os.WriteFile(filepath.Join(n.Dir, name), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	main := filepath.Join(n.Dir, "main.go")
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
	env := &capabilities.Environment{Cwd: n.Dir, Files: nvimbuf.New(n.V, localfs.New()), LSP: h.LSP(), Diagnostics: h.LSP()}
	reg := tools.Builtin(tools.Config{})
	input := json.RawMessage(`{"filePath":"main.go","symbol":"Greet","context":"_ = Greet(\"a\")"}`)
	pos := capabilities.Position{Line: 6, Col: 5}
	// Warm up: gopls loads the module on the first request.
	if res := reg.Run(context.Background(), "hover", tools.Call{Input: input, Env: env}); res.IsError {
		b.Fatal(res.Text)
	}
	direct := `
		local path, line, col = ...
		local buf = vim.fn.bufnr(path)
		local params = { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = line, character = col } }
		local res = vim.lsp.buf_request_sync(buf, "textDocument/hover", params, 5000)
		return res ~= nil and next(res) ~= nil`
	b.Run("tool", func(b *testing.B) {
		var ds []time.Duration
		for i := 0; i < b.N; i++ {
			start := time.Now()
			if res := reg.Run(context.Background(), "hover", tools.Call{Input: input, Env: env}); res.IsError {
				b.Fatal(res.Text)
			}
			ds = append(ds, time.Since(start))
		}
		b.ReportMetric(median(ds), "median-ms")
	})
	b.Run("adapter", func(b *testing.B) {
		var ds []time.Duration
		for i := 0; i < b.N; i++ {
			start := time.Now()
			if _, err := h.LSP().Hover(context.Background(), main, pos); err != nil {
				b.Fatal(err)
			}
			ds = append(ds, time.Since(start))
		}
		b.ReportMetric(median(ds), "median-ms")
	})
	b.Run("direct", func(b *testing.B) {
		var ds []time.Duration
		for i := 0; i < b.N; i++ {
			start := time.Now()
			var ok bool
			n.LuaResult(&ok, direct, main, pos.Line, pos.Col)
			if !ok {
				b.Fatal("no hover")
			}
			ds = append(ds, time.Since(start))
		}
		b.ReportMetric(median(ds), "median-ms")
	})
}

// BenchmarkEditCheck is what the edit check (pkg/lspverify) adds to an
// edit_file, on each Neovim: "plain" is the tool alone, "checked" the
// tool inside the check, of a file open in a buffer, against a server
// that reports at once (testdata/fakels.py echo, with Neovim's change
// debounce off), so the difference is the check's own cost — the two
// snapshots' round trips and the delta — not a server's. "hidden-*" is
// the same for a file no buffer holds, which the check loads into a
// hidden buffer (the server attaching and reporting on the open) and
// wipes after.
func BenchmarkEditCheck(b *testing.B) {
	bins := nvimtest.Binaries()
	if len(bins) == 0 {
		b.Skip("no Neovim")
	}
	python, err := exec.LookPath("python3")
	if err != nil {
		b.Skip("no python3")
	}
	script := filepath.Join(nvimtest.Root(), "pkg", "host", "testdata", "fakels.py")
	for _, bin := range bins {
		b.Run(nvimtest.Version(b, bin), func(b *testing.B) {
			n := nvimtest.Start(b, bin)
			h := n.StartHost(host.Options{Version: "bench", NewProvider: func(config.Profile) (provider.Provider, error) { return nil, nil }})
			n.Setup(`{ profiles = { { name = "x", provider = "anthropic", model = "m" } } }`)
			n.Command("Magenta toggle")
			n.WaitForText("display", "# New thread")
			notes := filepath.Join(n.Dir, "notes.md")
			for _, name := range []string{"notes.md", "hidden.md"} {
				if err := os.WriteFile(filepath.Join(n.Dir, name), []byte("# Notes\n\nalpha\n"), 0o644); err != nil {
					b.Fatal(err)
				}
			}
			n.Lua(`
				local cmd, root = ...
				vim.api.nvim_create_autocmd("FileType", { pattern = "markdown", callback = function(ev)
					local cfg = { name = "echols", cmd = cmd, root_dir = root, flags = { debounce_text_changes = 0 } }
					if vim.lsp.start then vim.lsp.start(cfg, { bufnr = ev.buf }) else
						_G.echo_id = _G.echo_id or vim.lsp.start_client(cfg)
						vim.lsp.buf_attach_client(ev.buf, _G.echo_id)
					end
				end })`, []string{python, script, "echo"}, n.Dir)
			b.Cleanup(func() { stopServers(n) })
			n.Lua(`require("magenta.ui").open_file(...)`, notes)
			env := &capabilities.Environment{Cwd: n.Dir, Files: nvimbuf.New(n.V, localfs.New()), LSP: h.LSP(), Diagnostics: h.LSP()}
			reg := tools.Builtin(tools.Config{})
			words := []string{"alpha", "beta"}
			edit := func(file string, i int) tools.Call {
				in, _ := json.Marshal(map[string]string{"path": file, "old_string": words[i%2], "new_string": words[(i+1)%2]})
				return tools.Call{Input: in, Env: env}
			}
			check := lspverify.New(time.Second)
			counts := map[string]int{}
			run := func(file string, checked bool) {
				call := edit(file, counts[file])
				counts[file]++
				next := func(ctx context.Context) tools.Result { return reg.Run(ctx, "edit_file", call) }
				var res tools.Result
				if checked {
					res = check.Intercept(context.Background(), "edit_file", call, next)
				} else {
					res = next(context.Background())
				}
				if res.IsError || strings.Contains(res.Text, "not reported") {
					b.Fatal(res.Text)
				}
			}
			run("notes.md", true) // the server attached and reported
			for _, mode := range []string{"plain", "checked", "hidden-plain", "hidden-checked"} {
				file := map[bool]string{false: "notes.md", true: "hidden.md"}[strings.HasPrefix(mode, "hidden")]
				b.Run(mode, func(b *testing.B) {
					var ds []time.Duration
					for b.Loop() {
						start := time.Now()
						run(file, strings.HasSuffix(mode, "checked"))
						ds = append(ds, time.Since(start))
					}
					b.ReportMetric(median(ds), "ms")
				})
			}
		})
	}
}
