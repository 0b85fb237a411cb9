package chat

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/anthropic"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// Through the real Anthropic adapter and a fake Messages API over HTTP
// and SSE: the thinking before a tool call (its text and signature) and
// a redacted block go back in the request that carries the tool result,
// byte for byte, and stay in the history for later turns.
func TestThinkingRoundTripsOnTheWire(t *testing.T) {
	thinking := "The title should say what we do — “quoted” <and> escaped\\n?"
	signature := "EuYBCkQYAiJAx9+/sig==" + "\u00e9"
	srv := providertest.NewAnthropicServer(t,
		providertest.Reply{StopReason: "tool_use", Blocks: []providertest.ReplyBlock{
			{Type: "thinking", Thinking: thinking, Signature: signature, Chunks: 4},
			{Type: "redacted_thinking", Data: "REDACTED+DATA=="},
			{Type: "tool_use", ID: "toolu_1", Name: "thread_title", Input: `{"title":"Wire"}`},
		}},
		providertest.Reply{StopReason: "end_turn", Blocks: []providertest.ReplyBlock{{Type: "text", Text: "Titled."}}},
		providertest.Reply{StopReason: "end_turn", Blocks: []providertest.ReplyBlock{{Type: "text", Text: "Again."}}},
	)
	screen := newRecordingScreen()
	profile := config.Profile{Name: "claude", Provider: "anthropic", Model: "claude-test", Thinking: &config.Thinking{BudgetTokens: 2048}}
	app, err := NewApp(context.Background(), config.Options{Profiles: []config.Profile{profile}}, AppDeps{
		Screen: screen, Tools: tools.Default(), Env: &capabilities.Environment{Name: "test", Cwd: t.TempDir()},
		NewProvider: func(config.Profile) (provider.Provider, error) {
			return anthropic.New(anthropic.Options{BaseURL: srv.URL, APIKey: "k"})
		},
		SystemPrompt: "be brief",
	})
	require.NoError(t, err)
	t.Cleanup(app.Close)
	app.Send("name this thread")
	screen.waitForText(t, "Titled.")
	screen.waitForText(t, "▸ thinking (1 line)")
	app.Send("and again")
	screen.waitForText(t, "Again.")

	bodies := srv.Bodies()
	require.Len(t, bodies, 3)
	var first struct {
		Thinking struct {
			Type         string `json:"type"`
			BudgetTokens int    `json:"budget_tokens"`
		} `json:"thinking"`
	}
	require.NoError(t, json.Unmarshal(bodies[0], &first))
	assert.Equal(t, "enabled", first.Thinking.Type)
	assert.Equal(t, 2048, first.Thinking.BudgetTokens)

	for _, body := range bodies[1:] {
		var req struct {
			Messages []struct {
				Role    string            `json:"role"`
				Content []json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		require.NoError(t, json.Unmarshal(body, &req))
		assistant := req.Messages[1]
		require.Equal(t, "assistant", assistant.Role)
		require.Len(t, assistant.Content, 3)
		var th struct{ Type, Thinking, Signature string }
		require.NoError(t, json.Unmarshal(assistant.Content[0], &th))
		assert.Equal(t, "thinking", th.Type)
		assert.True(t, th.Thinking == thinking, "thinking byte for byte: %q", th.Thinking)
		assert.True(t, th.Signature == signature, "signature byte for byte: %q", th.Signature)
		assert.JSONEq(t, `{"type":"redacted_thinking","data":"REDACTED+DATA=="}`, string(assistant.Content[1]))
		assert.Contains(t, string(assistant.Content[2]), `"toolu_1"`)
	}
}
