package anthropic

import (
	sdk "github.com/anthropics/anthropic-sdk-go"

	"github.com/magenta-nvim/magenta/pkg/provider"
)

// MinThinkingBudget is the smallest thinking budget the API accepts.
const MinThinkingBudget = 1024

// setThinking turns extended thinking on when the request has a budget,
// within the API's rules: max_tokens counts the thinking and must exceed
// the budget, so when the request leaves it unset (requested 0) or sets
// it no higher than the budget, it becomes the budget plus
// defaultMaxTokens for the answer. Temperature and top_k, which thinking
// does not allow, are never sent.
func setThinking(p *sdk.MessageNewParams, r provider.Reasoning, requested int) {
	if r.BudgetTokens <= 0 {
		return
	}
	budget := int64(max(r.BudgetTokens, MinThinkingBudget))
	p.Thinking = sdk.ThinkingConfigParamOfEnabled(budget)
	if requested <= 0 || p.MaxTokens <= budget {
		p.MaxTokens = budget + defaultMaxTokens
	}
}
