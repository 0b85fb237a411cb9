package host_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/host"
	"github.com/magenta-nvim/magenta/pkg/nvimtest"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
)

// BenchmarkFirstTextDrawn measures how long the first text of a reply
// takes to appear in the display buffer after the provider sent it: the
// provider answers a request at once (so the send just drew a frame), and
// the test polls the buffer over RPC (polling adds ~0.1 ms). The metric
// is the median over b.N replies.
func BenchmarkFirstTextDrawn(b *testing.B) {
	bins := nvimtest.Binaries()
	if len(bins) == 0 {
		b.Skip("no Neovim found: install it or set MAGENTA_TEST_NVIMS")
	}
	n := nvimtest.Start(b, bins[0])
	fake := providertest.New()
	n.StartHost(host.Options{
		Version:     "bench",
		NewProvider: func(config.Profile) (provider.Provider, error) { return fake, nil },
	})
	n.Setup(testOptions)
	n.Command("Magenta toggle")
	display := n.Buffer("display")
	samples := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		n.FocusRole("input")
		n.Type(fmt.Sprintf("question %d", i))
		n.Keys("<CR>")
		call := fake.Next(b)
		word := fmt.Sprintf("answer-%d", i)
		start := time.Now()
		call.Text(word)
		for {
			var last []string
			if err := n.V.ExecLua(`local b = ...; local c = vim.api.nvim_buf_line_count(b); return vim.api.nvim_buf_get_lines(b, math.max(0, c - 8), -1, false)`, &last, display); err != nil {
				b.Fatal(err)
			}
			if strings.Contains(strings.Join(last, "\n"), word) {
				break
			}
			if time.Since(start) > 30*time.Second {
				b.Fatal("the first text never appeared")
			}
		}
		samples = append(samples, time.Since(start))
		call.Stop(provider.StopEndTurn)
		n.WaitForText("display", "ready")
	}
	b.StopTimer()
	sort.Slice(samples, func(i, j int) bool { return samples[i] < samples[j] })
	b.ReportMetric(float64(samples[len(samples)/2].Microseconds())/1000, "ms-median")
}
