package anthropic

import (
	sdk "github.com/anthropics/anthropic-sdk-go"

	"github.com/magenta-nvim/magenta/pkg/chat/provider"
)

// MinThinkingBudget is the smallest thinking budget the API accepts.
const MinThinkingBudget = 1024

// setThinking turns extended thinking on when the request has a budget,
// within the API's rules: the budget must be below max_tokens (which
// counts the thinking), so a smaller max_tokens is raised to leave
// defaultMaxTokens for the answer. Temperature and top_k, which thinking
// does not allow, are never sent.
func setThinking(p *sdk.MessageNewParams, r provider.Reasoning) {
	if r.BudgetTokens <= 0 {
		return
	}
	budget := int64(max(r.BudgetTokens, MinThinkingBudget))
	p.Thinking = sdk.ThinkingConfigParamOfEnabled(budget)
	if p.MaxTokens <= budget {
		p.MaxTokens = budget + defaultMaxTokens
	}
}
