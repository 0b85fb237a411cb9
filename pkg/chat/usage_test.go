package chat

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/chat/view"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

func price(v float64) *float64 { return &v }

// The usage the provider reports is added up per turn (shown after it)
// and per thread (shown in the header), and priced with the profile's
// pricing: uncached input, cache reads, cache writes and output each at
// its own price.
func TestUsageShownPerTurnAndThreadWithCost(t *testing.T) {
	screen := newRecordingScreen()
	fake := providertest.New()
	priced := config.Profile{Name: "priced", Provider: "anthropic", Model: "model-a",
		Pricing: &config.Pricing{Input: 3, Output: 15, CacheRead: price(0.3), CacheWrite: price(3.75)}}
	app, err := NewApp(context.Background(), config.Options{Profiles: []config.Profile{priced}}, AppDeps{
		Screen: screen, Tools: tools.Default(), Env: &capabilities.Environment{Name: "test", Cwd: t.TempDir()},
		NewProvider: func(config.Profile) (provider.Provider, error) { return fake, nil },
	})
	require.NoError(t, err)
	t.Cleanup(app.Close)
	screen.waitForText(t, "# New thread")
	assert.NotContains(t, screen.text(), "tokens:", "no usage yet: no line")

	app.Send("rename the thread")
	call := fake.Next(t)
	call.Usage(provider.Usage{InputTokens: 10000, CacheWriteTokens: 8000, OutputTokens: 200})
	call.ToolUse("tu_1", "thread_title", map[string]string{"title": "Priced"})
	call.Stop(provider.StopToolUse)
	second := fake.Next(t)
	second.Usage(provider.Usage{InputTokens: 10500, CacheReadTokens: 8000, CacheWriteTokens: 400, OutputTokens: 100})
	second.Reply("Renamed.")
	// $0.039 + $0.0117
	const firstTurn = "20.5k in (8.0k cached, 8.4k written) · 300 out · $0.05"
	text := screen.waitForText(t, "ℹ turn (2 requests): "+firstTurn)
	assert.Contains(t, text, "tokens: "+firstTurn)

	app.Send("and again")
	third := fake.Next(t)
	third.Usage(provider.Usage{InputTokens: 11000, CacheReadTokens: 10400, OutputTokens: 50})
	third.Reply("Again.")
	// $0.00567: a cheap turn still shows what it cost.
	screen.waitForText(t, "ℹ turn: 11.0k in (10.4k cached) · 50 out · $0.006")
	screen.waitForText(t, "tokens: 31.5k in (18.4k cached, 8.4k written) · 350 out · $0.06")
}

// A profile without pricing shows tokens only; a provider that reports
// no usage gets no lines at all.
func TestUsageWithoutPricingOrReports(t *testing.T) {
	h := newHarness(t, nil)
	h.app.Send("hi")
	call := h.fake.Next(t)
	call.Usage(provider.Usage{InputTokens: 1234, OutputTokens: 56})
	call.Reply("hello")
	h.screen.waitForText(t, "ℹ turn: 1.2k in · 56 out\n")
	text := h.screen.waitForText(t, "tokens: 1.2k in · 56 out\n")
	assert.NotContains(t, text, "$")

	h.app.Send("again")
	h.fake.Next(t).Reply("no usage")
	text = h.screen.waitForText(t, "no usage")
	h.screen.waitForText(t, "ready")
	assert.Equal(t, 1, strings.Count(h.screen.text(), "ℹ turn"), "a turn without usage adds no line")
	assert.Contains(t, text, "tokens: 1.2k in · 56 out\n", "the total stays")
}

func TestUsageCostAddsEachPartAtItsPrice(t *testing.T) {
	p := &config.Pricing{Input: 3, Output: 15}
	u := usageCost(provider.Usage{InputTokens: 1_000_000, CacheReadTokens: 500_000, OutputTokens: 100_000}, p)
	assert.InDelta(t, 1.5+1.5+1.5, u.Cost, 1e-9, "an unset cache price costs as input")
	assert.Equal(t, view.Usage{Input: 1_000_000, Output: 100_000, CacheRead: 500_000, Cost: u.Cost, Priced: true}, u)
	assert.False(t, usageCost(provider.Usage{InputTokens: 5}, nil).Priced)
}
