package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/magenta-nvim/magenta/pkg/nvimtest"
	"github.com/magenta-nvim/magenta/pkg/proctest"
)

// firstNvim is the Neovim the benchmarks run against unless they say
// otherwise.
func firstNvim(b *testing.B) string {
	bins := nvimtest.Binaries()
	if len(bins) == 0 {
		b.Skip("no Neovim found: install it or set MAGENTA_TEST_NVIMS")
	}
	return bins[0]
}

// median of xs (which it sorts).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	sort.Float64s(xs)
	m := len(xs) / 2
	if len(xs)%2 == 1 {
		return xs[m]
	}
	return (xs[m-1] + xs[m]) / 2
}

// xdgEnv returns the environment with the XDG directories in dir, as
// nvimtest.Start sets them.
func xdgEnv(b *testing.B, dir string) []string {
	env := os.Environ()
	for _, x := range []string{"CONFIG", "DATA", "STATE", "CACHE"} {
		p := filepath.Join(dir, strings.ToLower(x))
		if err := os.MkdirAll(p, 0o700); err != nil {
			b.Fatal(err)
		}
		env = append(env, "XDG_"+x+"_HOME="+p)
	}
	return env
}

// BenchmarkStartup runs a whole headless Neovim per iteration, with the
// plugin on 'runtimepath', with and without setup(); the difference of
// the two ns/op is what setup() adds to start-up.
func BenchmarkStartup(b *testing.B) {
	bin := firstNvim(b)
	for _, c := range []struct {
		name  string
		setup bool
	}{{"without-setup", false}, {"with-setup", true}} {
		b.Run(c.name, func(b *testing.B) {
			dir := b.TempDir()
			env := xdgEnv(b, dir)
			args := []string{"--headless", "--clean", "-n", "-i", "NONE", "--cmd", "set rtp^=" + nvimtest.Root()}
			if c.setup {
				args = append(args, "-c", "lua require('magenta').setup()")
			}
			args = append(args, "+qa")
			for i := 0; i < b.N; i++ {
				var out bytes.Buffer
				cmd := exec.Command(bin, args...)
				cmd.Env, cmd.Dir, cmd.Stdout, cmd.Stderr = env, dir, &out, &out
				if err := cmd.Run(); err != nil || out.Len() > 0 {
					b.Fatalf("%s %q: %v\n%s", bin, args, err, out.String())
				}
			}
		})
	}
}

// BenchmarkSetupInProcess times setup() inside a fresh Neovim, so the
// cold load of the plugin's modules is included; process start-up is
// not. It reports the median of the in-Neovim times as setup-ns/op.
//
// ns/op covers the whole iteration (start the Neovim, call setup() over
// RPC, close it): with only the RPC timed, go test would raise b.N to
// hundreds of untimed Neovim starts per run.
func BenchmarkSetupInProcess(b *testing.B) {
	bin := firstNvim(b)
	samples := make([]float64, 0, b.N)
	for i := 0; i < b.N; i++ {
		n := nvimtest.Start(b, bin)
		n.Serve()
		var ns float64
		n.LuaResult(&ns, `
			local t = vim.loop.hrtime()
			local ok = require('magenta').setup()
			local d = vim.loop.hrtime() - t
			return ok and d or -1`)
		if ns < 0 {
			b.Fatalf("setup() failed: %s", n.Messages())
		}
		samples = append(samples, ns)
		_ = n.V.Close()
	}
	b.ReportMetric(median(samples), "setup-ns/op")
}

// toggleLua wraps require('magenta.ui').apply to note when the display
// buffer first shows the new thread's title, then runs :Magenta toggle.
// Both times come from the same clock in Neovim.
const toggleLua = `
local ui = require('magenta.ui')
local apply = ui.apply
local bench = {}
_G.magenta_bench = bench
ui.apply = function(buf, ...)
  local res = apply(buf, ...)
  if not bench.done and vim.api.nvim_buf_is_valid(buf) then
    for _, l in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
      if l == "# New thread" then
        bench.done = vim.loop.hrtime()
        break
      end
    end
  end
  return res
end
bench.start = vim.loop.hrtime()
vim.cmd("Magenta toggle")
bench.ret = vim.loop.hrtime()
`

// BenchmarkFirstToggle measures the first :Magenta toggle in a fresh
// Neovim with the built host: spawning the host, the RPC handshake,
// attach, and the first frame drawn. Each Neovim found is a sub-benchmark;
// toggle-ms-median is measured inside Neovim, ns/op from Go (it includes
// the polling that notices the frame). lua-ms-median is the time the
// command itself kept Neovim busy (until :Magenta toggle returned: the
// plugin's Lua, starting the host process, making the windows).
func BenchmarkFirstToggle(b *testing.B) {
	bins := nvimtest.Binaries()
	if len(bins) == 0 {
		b.Skip("no Neovim found: install it or set MAGENTA_TEST_NVIMS")
	}
	hostBin := nvimtest.HostBinary(b)
	// Three MCP servers configured must not change it: they start when a
	// thread first sends a request, not at attach.
	const threeMCP = `mcpServers = { a = { command = "cat" }, b = { command = "cat" }, c = { url = "http://127.0.0.1:9/mcp" } },`
	child := filepath.Join(b.TempDir(), "minimalchild")
	if out, err := exec.Command("go", "build", "-o", child, "./testdata/minimalchild").CombinedOutput(); err != nil {
		b.Fatalf("building the minimal child: %v\n%s", err, out)
	}
	for _, bin := range bins {
		// The floor: a Go RPC child showing one line in a split, no
		// plugin (testdata/minimalchild); same clock, same end mark.
		b.Run(nvimtest.Version(b, bin)+"/minimal-child", func(b *testing.B) {
			samples := make([]float64, 0, b.N)
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				n := nvimtest.Start(b, bin)
				n.Serve()
				b.StartTimer()
				n.Lua(`_G.magenta_bench = { start = vim.loop.hrtime() }; vim.fn.jobstart({ ... }, { rpc = true })`, child)
				var ns float64
				n.WaitFor("the child's line", func() bool {
					n.LuaResult(&ns, `local b = _G.magenta_bench; return b.done and (b.done - b.start) or -1`)
					return ns >= 0
				}, n.Messages)
				b.StopTimer()
				samples = append(samples, ns)
				_ = n.V.Close()
				b.StartTimer()
			}
			b.ReportMetric(median(samples)/1e6, "toggle-ms-median")
		})
		// Skill, command and agent files must not change it either: they
		// are read on first need (pkg/prompts).
		for _, v := range []struct {
			name, mcp string
			files     bool
		}{{"", "", false}, {"/3-mcp-servers", threeMCP, false}, {"/50-skills-50-commands-10-agents", "", true}} {
			name, mcp := nvimtest.Version(b, bin)+v.name, v.mcp
			b.Run(name, func(b *testing.B) {
				samples, luaSamples := make([]float64, 0, b.N), make([]float64, 0, b.N)
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					n := nvimtest.Start(b, bin)
					n.Serve()
					if v.files {
						plantPromptFiles(b, n.Dir)
					}
					n.Setup(fmt.Sprintf(`{
					profiles = { { name = "x", provider = "anthropic", model = "m" } },
					host = { binary = %q, logFile = %q },
					%s
				}`, hostBin, filepath.Join(n.Dir, "magenta.log"), mcp))
					b.StartTimer()

					n.Lua(toggleLua)
					var ns, lua float64
					n.WaitFor("the first frame", func() bool {
						n.LuaResult(&ns, `local b = _G.magenta_bench; return b.done and (b.done - b.start) or -1`)
						return ns >= 0
					}, func() string { return fmt.Sprintf("display: %q", n.Text(n.Buffer("display"))) })
					n.LuaResult(&lua, `local b = _G.magenta_bench; return b.ret - b.start`)

					b.StopTimer()
					samples = append(samples, ns)
					luaSamples = append(luaSamples, lua)
					_ = n.V.Close()
					b.StartTimer()
				}
				b.ReportMetric(median(samples)/1e6, "toggle-ms-median")
				b.ReportMetric(median(luaSamples)/1e6, "lua-ms-median")
			})
		}
	}
}

// BenchmarkHostMemoryAfterFirstToggle measures the host's resident
// memory right after the first :Magenta toggle drew its frame (the host
// pid from the `version` request, /proc/<pid>/status), in the first
// Neovim found. rss-KiB is the median VmRSS; anon-KiB and file-KiB split
// it into heap/stacks and pages of the binary and libraries.
func BenchmarkHostMemoryAfterFirstToggle(b *testing.B) {
	bin := firstNvim(b)
	hostBin := nvimtest.HostBinary(b)
	var rss, anon, file []float64
	for i := 0; i < b.N; i++ {
		n := nvimtest.Start(b, bin)
		n.Serve()
		n.Setup(fmt.Sprintf(`{
			profiles = { { name = "x", provider = "anthropic", model = "m" } },
			host = { binary = %q, logFile = %q },
		}`, hostBin, filepath.Join(n.Dir, "magenta.log")))
		n.Command("Magenta toggle")
		n.WaitForText("display", "# New thread")
		var pid int
		n.LuaResult(&pid, `return require('magenta.host').request('version').pid`)
		rss = append(rss, statusKiB(b, pid, "VmRSS"))
		anon = append(anon, statusKiB(b, pid, "RssAnon"))
		file = append(file, statusKiB(b, pid, "RssFile"))
		_ = n.V.Close()
	}
	b.ReportMetric(median(rss), "rss-KiB")
	b.ReportMetric(median(anon), "anon-KiB")
	b.ReportMetric(median(file), "file-KiB")
}

// statusKiB reads a field of /proc/<pid>/status.
func statusKiB(b *testing.B, pid int, field string) float64 {
	kib, err := proctest.StatusKiB(pid, field)
	if err != nil {
		b.Fatal(err)
	}
	return float64(kib)
}
