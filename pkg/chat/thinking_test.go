package chat

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/chat/view"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/provider"
)

// Thinking streams into a folded line under the reply's heading; = on
// it shows the text; the block goes back to the model with its
// signature, and the profile's budget reaches the request.
func TestThinkingIsFoldedAndKept(t *testing.T) {
	h := newHarness(t, nil)
	h.app.SetOptions(config.Options{Profiles: []config.Profile{
		{Name: "fast", Provider: "anthropic", Model: "model-a", Thinking: &config.Thinking{BudgetTokens: 2048}}}})
	h.app.SetProfile("fast")
	h.app.Send("think first")
	call := h.fake.Next(t)
	assert.Equal(t, provider.Reasoning{BudgetTokens: 2048}, call.Request.Reasoning)
	call.Thinking("Step one.\n", "sig-1")
	h.screen.waitForText(t, "▸ thinking… (1 line)")
	call.Thinking("Step two.", "sig-1")
	call.Text("Answer.")
	call.Stop(provider.StopEndTurn)
	text := h.screen.waitForText(t, "▸ thinking (2 lines) · = expands")
	assert.Contains(t, text, "## assistant\n▸ thinking (2 lines) · = expands\n\nAnswer.")
	assert.NotContains(t, text, "Step one.")

	line := h.screen.lineOf(t, "▸ thinking")
	h.app.Key(view.KeyToggle, line)
	text = h.screen.waitForText(t, "▾ thinking (2 lines)")
	assert.Contains(t, text, "  Step one.\n  Step two.")
	h.app.Key(view.KeyToggle, line)
	h.screen.waitForText(t, "▸ thinking (2 lines)")

	h.app.Send("next")
	next := h.fake.Next(t)
	require.Len(t, next.Request.Messages, 3)
	assert.Equal(t, provider.Block{Kind: provider.BlockThinking, Thinking: "Step one.\nStep two.", Signature: "sig-1"}, next.Request.Messages[1].Content[0])
	next.Reply("ok")
}
