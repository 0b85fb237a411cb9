package openai

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/provider"
)

// reasoning_effort goes out when the profile sets it; reasoning text in
// either field servers use is shown as thinking but not kept in the
// message (Chat Completions cannot take it back).
func TestReasoningEffortAndReasoningText(t *testing.T) {
	fs := newFakeServer(t, sseReply(roleChunk(),
		chunk(choice(map[string]any{"reasoning_content": "First, "}, nil)),
		chunk(choice(map[string]any{"reasoning": "think."}, nil)),
		textChunk("Answer"), finishChunk("stop"), usageChunk(5, 2), done))
	req := simpleRequest()
	req.Reasoning = provider.Reasoning{Effort: "high"}
	resp, events, err := run(t, fs.provider(t, "k"), req)
	require.NoError(t, err)
	assert.Equal(t, "high", fs.lastRequest(t).Body["reasoning_effort"])
	assert.Equal(t, []provider.Event{
		provider.ThinkingDelta{Index: 0, Text: "First, "},
		provider.ThinkingDelta{Index: 0, Text: "think."},
		provider.TextDelta{Index: 0, Text: "Answer"},
	}, events)
	assert.Equal(t, []provider.Block{provider.TextBlock("Answer")}, resp.Message.Content)
}

// Without an effort the field is absent, and thinking blocks in the
// history (from an Anthropic profile used earlier) are not sent.
func TestNoReasoningEffortByDefault(t *testing.T) {
	fs := newFakeServer(t, sseReply(roleChunk(), textChunk("ok"), finishChunk("stop"), done))
	req := simpleRequest()
	req.Messages = append(req.Messages,
		provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{{Kind: provider.BlockThinking, Thinking: "secret", Signature: "s"}, provider.TextBlock("hi")}},
		provider.Message{Role: provider.RoleUser, Content: []provider.Block{provider.TextBlock("more")}})
	_, _, err := run(t, fs.provider(t, "k"), req)
	require.NoError(t, err)
	body := fs.lastRequest(t).Body
	_, has := body["reasoning_effort"]
	assert.False(t, has)
	assert.NotContains(t, body["messages"], "secret")
	msgs := body["messages"].([]any)
	assert.Equal(t, "hi", msgs[1].(map[string]any)["content"])
}
