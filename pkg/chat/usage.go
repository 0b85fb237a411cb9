package chat

import (
	"github.com/magenta-nvim/magenta/pkg/chat/view"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/provider"
)

// tokensPerPriceUnit is what a profile's prices are per: a million tokens.
const tokensPerPriceUnit = 1_000_000

// usageCost is what u cost under pricing: uncached input, cache reads,
// cache writes and output, each at its own price. Priced is false
// without pricing.
func usageCost(u provider.Usage, pricing *config.Pricing) view.Usage {
	out := view.Usage{Input: u.InputTokens, Output: u.OutputTokens, CacheRead: u.CacheReadTokens, CacheWrite: u.CacheWriteTokens}
	if pricing == nil {
		return out
	}
	uncached := max(u.InputTokens-u.CacheReadTokens-u.CacheWriteTokens, 0)
	out.Priced = true
	out.Cost = (float64(uncached)*pricing.Input +
		float64(u.CacheReadTokens)*pricing.CacheReadPrice() +
		float64(u.CacheWriteTokens)*pricing.CacheWritePrice() +
		float64(u.OutputTokens)*pricing.Output) / tokensPerPriceUnit
	return out
}

// addUsage is the sum of two usages; the sum is priced when either part
// was (a thread may switch between priced and unpriced profiles).
func addUsage(a, b view.Usage) view.Usage {
	return view.Usage{
		Input: a.Input + b.Input, Output: a.Output + b.Output,
		CacheRead: a.CacheRead + b.CacheRead, CacheWrite: a.CacheWrite + b.CacheWrite,
		Cost: a.Cost + b.Cost, Priced: a.Priced || b.Priced,
	}
}

// countUsage adds one response's usage, priced with the profile that
// made the request, to the turn and the thread.
func (t *Thread) countUsage(u provider.Usage) {
	if u.IsZero() {
		return
	}
	c := usageCost(u, t.profile.Pricing)
	t.usage = addUsage(t.usage, c)
	if tr := t.turn; tr != nil {
		tr.usage = addUsage(tr.usage, c)
		tr.requests++
	}
	t.dirty = true
}

// noteTurnUsage ends a turn's display with what its requests used, and
// saves the line with the thread; a provider that reports no usage gets
// no line.
func (t *Thread) noteTurnUsage(tr *turn) {
	if tr.usage.IsZero() {
		return
	}
	t.notice(view.NoticeInfo, view.TurnUsageLine(tr.usage, tr.requests))
	t.emit(TurnUsage{Usage: tr.usage, Requests: tr.requests})
}
