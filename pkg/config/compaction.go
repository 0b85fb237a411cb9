package config

import (
	"fmt"
	"strings"
)

// Thinking is Anthropic's extended thinking for a profile.
type Thinking struct {
	// BudgetTokens is how many tokens the model may think for; the API
	// wants at least MinThinkingBudget.
	BudgetTokens int `json:"budgetTokens"`
}

// MinThinkingBudget is the smallest thinking budget Anthropic accepts.
const MinThinkingBudget = 1024

// ReasoningEfforts are the reasoningEffort values of OpenAI-compatible
// reasoning models.
var ReasoningEfforts = []string{"low", "medium", "high"}

// DefaultCompactAt is the share of the context window a request's input
// may reach before the next message compacts the thread.
const DefaultCompactAt = 0.8

// KnownContextWindows are the context windows (tokens) of common models,
// by model-name prefix; the longest matching prefix wins. A model not
// listed has no window unless the profile sets contextWindow: it is then
// compacted only when the provider says the prompt is too long. The
// table is documented in doc/magenta.txt (magenta-compaction).
var KnownContextWindows = []struct {
	Prefix string
	Tokens int
}{
	{"claude-opus-4", 200_000},
	{"claude-sonnet-4", 200_000},
	{"claude-haiku-4", 200_000},
	{"claude-3-7-sonnet", 200_000},
	{"claude-3-5-sonnet", 200_000},
	{"claude-3-5-haiku", 200_000},
	{"gpt-4o", 128_000},
	{"gpt-4.1", 1_047_576},
	{"gpt-4-turbo", 128_000},
	{"gpt-5", 400_000},
	{"o1", 200_000},
	{"o1-mini", 128_000},
	{"o3", 200_000},
	{"o4-mini", 200_000},
}

// ContextWindowFor is the profile's context window in tokens: its own
// contextWindow, else the known window of its model, else 0 (unknown).
func (p Profile) ContextWindowFor() int {
	if p.ContextWindow > 0 {
		return p.ContextWindow
	}
	best, tokens := 0, 0
	for _, k := range KnownContextWindows {
		if strings.HasPrefix(p.Model, k.Prefix) && len(k.Prefix) > best {
			best, tokens = len(k.Prefix), k.Tokens
		}
	}
	return tokens
}

// CompactThreshold is the input tokens at which the next message
// compacts the thread first; 0 when the window is unknown.
func (p Profile) CompactThreshold() int {
	at := p.CompactAt
	if at <= 0 {
		at = DefaultCompactAt
	}
	return int(at * float64(p.ContextWindowFor()))
}

// validateLongThreads checks the thinking and compaction options of one
// profile.
func (p Profile) validateLongThreads(where string, o Options) error {
	if t := p.Thinking; t != nil {
		if p.Provider != ProviderAnthropic {
			return fmt.Errorf("%s.thinking: only anthropic profiles think with a budget; use reasoningEffort for %s", where, p.Provider)
		}
		if t.BudgetTokens < MinThinkingBudget {
			return fmt.Errorf("%s.thinking.budgetTokens: must be at least %d, got %d", where, MinThinkingBudget, t.BudgetTokens)
		}
	}
	if e := p.ReasoningEffort; e != "" {
		if p.Provider != ProviderOpenAI {
			return fmt.Errorf("%s.reasoningEffort: only openai profiles take it; use thinking = { budgetTokens = N } for %s", where, p.Provider)
		}
		ok := false
		for _, v := range ReasoningEfforts {
			ok = ok || v == e
		}
		if !ok {
			return fmt.Errorf("%s.reasoningEffort: %q is not one of %s", where, e, strings.Join(ReasoningEfforts, ", "))
		}
	}
	if p.ContextWindow < 0 {
		return fmt.Errorf("%s.contextWindow: must be a positive number of tokens", where)
	}
	if !(p.CompactAt >= 0 && p.CompactAt <= 1) {
		return fmt.Errorf("%s.compactAt: must be a fraction of the context window between 0 and 1, got %v", where, p.CompactAt)
	}
	if c := p.CompactProfile; c != "" {
		if _, ok := o.Profile(c); !ok {
			return fmt.Errorf("%s.compactProfile: there is no profile %q", where, c)
		}
	}
	return nil
}
