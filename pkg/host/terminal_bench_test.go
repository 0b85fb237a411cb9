package host_test

import (
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/magenta-nvim/magenta/pkg/capabilities/memshell"
	"github.com/magenta-nvim/magenta/pkg/nvimtest"
)

// BenchmarkTerminalKeystrokeEcho measures a key typed in an interactive
// command's terminal window until its echo is in the terminal buffer:
// nvim_input → on_input → rpcnotify → the host's writer → Terminal.Write
// (memshell's, which echoes at once: no PTY or command in the path) →
// the subscription → the sender's nvim_chan_send → Neovim's terminal.
// Reported as the median and p99 per key (ms); the buffer is polled over
// RPC back to back, so the figures include up to one poll round trip;
// most of the time is Neovim's own terminal refresh delay (10 ms).
func BenchmarkTerminalKeystrokeEcho(b *testing.B) {
	bins := nvimtest.Binaries()
	if len(bins) == 0 {
		b.Skip("no Neovim found: install it or set MAGENTA_TEST_NVIMS")
	}
	term := memshell.NewTerminal()
	n, _ := startInteractive(b, bins[0], term, "")
	term.Output([]byte("$ "))
	term.SetScreen("$")
	n.WaitForText("display", "┆ $")
	n.FocusRole("display")
	n.CursorTo("┆ $")
	n.Keys("t")
	n.WaitForText("terminal", "$")
	n.WaitFor("terminal mode", func() bool { return mode(n) == "t" }, func() string { return mode(n) })
	echoLatency(b, n, "$ ")
}

// BenchmarkTerminalKeystrokeEchoPTY is BenchmarkTerminalKeystrokeEcho
// through a real PTY: `cat >/dev/null` run interactive by the local shell, the echo
// made by the PTY's line discipline, the bytes read by the shell's
// reader and emulator, so the whole path a user's key takes is measured.
func BenchmarkTerminalKeystrokeEchoPTY(b *testing.B) {
	bins := nvimtest.Binaries()
	if len(bins) == 0 {
		b.Skip("no Neovim found: install it or set MAGENTA_TEST_NVIMS")
	}
	n, _ := runInteractive(b, bins[0], "echo ready; cat >/dev/null", "ready")
	echoLatency(b, n, "")
}

// echoLatency types keys into the open terminal window of n, timing each
// until its echo ends the buffer's last line (typed starts it).
func echoLatency(b *testing.B, n *nvimtest.Nvim, typed string) {
	buf := n.Buffer("terminal")
	lastLine := func() string {
		var l string
		n.LuaResult(&l, `local b = ... ; local ls = vim.api.nvim_buf_get_lines(b, 0, -1, false)
			for i = #ls, 1, -1 do if ls[i] ~= "" then return ls[i] end end
			return ""`, buf)
		return l
	}
	keys := "abcdefghijklmnopqrstuvwxyz"
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if len(typed) > 60 { // a new line, so the line stays short
			if _, err := n.V.Input("<CR>"); err != nil {
				b.Fatal(err)
			}
			typed = ""
		}
		k := string(keys[i%len(keys)])
		start := time.Now()
		if _, err := n.V.Input(k); err != nil {
			b.Fatal(err)
		}
		typed += k
		want := typed
		// Polled back to back (one RPC round trip each, ~0.3 ms), not on
		// WaitFor's 5 ms tick, so the figure is not rounded up to it.
		deadline := start.Add(nvimtest.Wait)
		for strings.TrimRight(lastLine(), " ") != want {
			if time.Now().After(deadline) {
				b.Fatalf("no echo of %q; last line %q", want, lastLine())
			}
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(lat[len(lat)/2]), "median-ms")
	b.ReportMetric(ms(lat[len(lat)*99/100]), "p99-ms")
}
