package host_test

import (
	"testing"

	"github.com/magenta-nvim/magenta/pkg/nvimtest"
	"github.com/magenta-nvim/magenta/pkg/provider"
)

// A profile's pricing set in setup() reaches the host, and the usage the
// provider reports shows, priced, after the turn and in the header of the
// real sidebar.
func TestUsageAndCostInTheSidebar(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := start(t, bin)
		n.Setup(`{ profiles = { { name = "priced", provider = "anthropic", model = "model-a",
			pricing = { input = 3, output = 15, cacheRead = 0.3 } } }, sandbox = { enabled = false } }`)
		n.Command("Magenta toggle")
		n.WaitForText("display", "# New thread")

		n.Type("hi")
		n.Keys("<CR>")
		call := fake.Next(t)
		call.Usage(provider.Usage{InputTokens: 20000, CacheReadTokens: 18000, OutputTokens: 100})
		call.Reply("hello")
		// 2000 × $3 + 18000 × $0.3 + 100 × $15, per million: $0.0129, shown in cents.
		n.WaitForText("display", "ℹ turn: 20.0k in (18.0k cached) · 100 out · $0.01")
		n.WaitForText("display", "tokens: 20.0k in (18.0k cached) · 100 out · $0.01")
	})
}
