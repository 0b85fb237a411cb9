package anthropic

import (
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/provider"
)

func TestStreamTextDeltasInOrder(t *testing.T) {
	p := streamingProvider(t, func(s *sse) {
		s.messageStart(25)
		s.textStart(0)
		s.ping()
		s.textDelta(0, "Hel")
		s.textDelta(0, "lo, ")
		s.ping()
		s.textDelta(0, "world")
		s.blockStop(0)
		s.messageDelta("end_turn", 15)
		s.messageStop()
	})
	events, resp, err := collect(t, p, simpleRequest())
	require.NoError(t, err)

	assert.Equal(t, []provider.Event{
		provider.TextDelta{Index: 0, Text: "Hel"},
		provider.TextDelta{Index: 0, Text: "lo, "},
		provider.TextDelta{Index: 0, Text: "world"},
	}, events)
	var concat strings.Builder
	for _, e := range events {
		concat.WriteString(e.(provider.TextDelta).Text)
	}
	assert.Equal(t, provider.RoleAssistant, resp.Message.Role)
	require.Len(t, resp.Message.Content, 1)
	assert.Equal(t, provider.TextBlock(concat.String()), resp.Message.Content[0])
	assert.Equal(t, provider.StopEndTurn, resp.StopReason)
	assert.Equal(t, "end_turn", resp.RawStopReason)
	assert.Equal(t, provider.Usage{InputTokens: 25, OutputTokens: 15}, resp.Usage)
}

func TestStreamToolUseAssemblesPartialJSON(t *testing.T) {
	parts := []string{`{"path": "ma`, `in.go", "lin`, `es": [1, `, `2]}`}
	p := streamingProvider(t, func(s *sse) {
		s.messageStart(10)
		s.toolStart(0, "toolu_01", "read_file")
		for _, part := range parts {
			s.jsonDelta(0, part)
		}
		s.blockStop(0)
		s.messageDelta("tool_use", 30)
		s.messageStop()
	})
	events, resp, err := collect(t, p, simpleRequest())
	require.NoError(t, err)

	want := []provider.Event{provider.ToolUseStart{Index: 0, ID: "toolu_01", Name: "read_file"}}
	for _, part := range parts {
		want = append(want, provider.ToolUseDelta{Index: 0, PartialJSON: part})
	}
	assert.Equal(t, want, events)
	require.Len(t, resp.Message.Content, 1)
	b := resp.Message.Content[0]
	assert.Equal(t, provider.BlockToolUse, b.Kind)
	assert.Equal(t, "toolu_01", b.ToolUseID)
	assert.Equal(t, "read_file", b.ToolName)
	assert.JSONEq(t, `{"path":"main.go","lines":[1,2]}`, string(b.Input))
	assert.Equal(t, provider.StopToolUse, resp.StopReason)
}

func TestStreamTextThenTwoToolUses(t *testing.T) {
	p := streamingProvider(t, func(s *sse) {
		s.messageStart(10)
		s.textStart(0)
		s.textDelta(0, "Let me look.")
		s.blockStop(0)
		s.toolStart(1, "toolu_a", "list")
		s.jsonDelta(1, `{"dir":`)
		s.jsonDelta(1, `"."}`)
		s.blockStop(1)
		s.toolStart(2, "toolu_b", "status") // no input deltas at all
		s.blockStop(2)
		s.messageDelta("tool_use", 40)
		s.messageStop()
	})
	events, resp, err := collect(t, p, simpleRequest())
	require.NoError(t, err)

	assert.Equal(t, []provider.Event{
		provider.TextDelta{Index: 0, Text: "Let me look."},
		provider.ToolUseStart{Index: 1, ID: "toolu_a", Name: "list"},
		provider.ToolUseDelta{Index: 1, PartialJSON: `{"dir":`},
		provider.ToolUseDelta{Index: 1, PartialJSON: `"."}`},
		provider.ToolUseStart{Index: 2, ID: "toolu_b", Name: "status"},
	}, events)
	c := resp.Message.Content
	require.Len(t, c, 3)
	assert.Equal(t, provider.TextBlock("Let me look."), c[0])
	assert.Equal(t, "toolu_a", c[1].ToolUseID)
	assert.JSONEq(t, `{"dir":"."}`, string(c[1].Input))
	assert.Equal(t, "toolu_b", c[2].ToolUseID)
	assert.Equal(t, "status", c[2].ToolName)
	assert.Equal(t, `{}`, string(c[2].Input))
}

// Thinking and redacted thinking are kept in place with their signature
// and data; empty text blocks are dropped without leaving holes.
func TestStreamKeepsThinkingAndDropsEmptyText(t *testing.T) {
	p := streamingProvider(t, func(s *sse) {
		s.messageStart(10)
		s.blockStart(0, obj{"type": "thinking", "thinking": "", "signature": ""})
		s.delta(0, obj{"type": "thinking_delta", "thinking": "hmm, "})
		s.delta(0, obj{"type": "thinking_delta", "thinking": "let me see"})
		s.delta(0, obj{"type": "signature_delta", "signature": "sig"})
		s.blockStop(0)
		s.textStart(1) // stays empty: dropped
		s.blockStop(1)
		s.blockStart(2, obj{"type": "redacted_thinking", "data": "xyz"})
		s.blockStop(2)
		s.textStart(3)
		s.textDelta(3, "Answer")
		s.blockStop(3)
		s.toolStart(4, "toolu_1", "edit")
		s.blockStop(4)
		s.messageDelta("tool_use", 9)
		s.messageStop()
	})
	events, resp, err := collect(t, p, simpleRequest())
	require.NoError(t, err)

	assert.Equal(t, []provider.Event{
		provider.ThinkingDelta{Index: 0, Text: "hmm, "},
		provider.ThinkingDelta{Index: 0, Text: "let me see"},
		provider.TextDelta{Index: 2, Text: "Answer"},
		provider.ToolUseStart{Index: 3, ID: "toolu_1", Name: "edit"},
	}, events)
	require.Len(t, resp.Message.Content, 4)
	assert.Equal(t, provider.Block{Kind: provider.BlockThinking, Thinking: "hmm, let me see", Signature: "sig"}, resp.Message.Content[0])
	assert.Equal(t, provider.Block{Kind: provider.BlockRedactedThinking, RedactedData: "xyz"}, resp.Message.Content[1])
	assert.Equal(t, provider.TextBlock("Answer"), resp.Message.Content[2])
	assert.Equal(t, "toolu_1", resp.Message.Content[3].ToolUseID)
}

func TestStreamStopReasons(t *testing.T) {
	cases := []struct {
		raw  string
		want provider.StopReason
	}{
		{"end_turn", provider.StopEndTurn},
		{"tool_use", provider.StopToolUse},
		{"max_tokens", provider.StopMaxTokens},
		{"refusal", provider.StopOther},
		{"pause_turn", provider.StopOther},
		{"stop_sequence", provider.StopOther},
		{"model_context_window_exceeded", provider.StopOther},
	}
	for _, tc := range cases {
		t.Run(tc.raw, func(t *testing.T) {
			p := streamingProvider(t, func(s *sse) { s.textMessage(tc.raw, "x") })
			_, resp, err := collect(t, p, simpleRequest())
			require.NoError(t, err)
			assert.Equal(t, tc.want, resp.StopReason)
			assert.Equal(t, tc.raw, resp.RawStopReason)
		})
	}
}

func TestStreamConcurrentUse(t *testing.T) {
	p := streamingProvider(t, func(s *sse) { s.textMessage("end_turn", "a", "b") })
	var wg sync.WaitGroup
	errs := make([]error, 4)
	texts := make([]string, 4)
	for i := range errs {
		wg.Go(func() {
			_, resp, err := collect(t, p, simpleRequest())
			errs[i] = err
			if err == nil {
				texts[i] = resp.Message.Content[0].Text
			}
		})
	}
	wg.Wait()
	for i := range errs {
		assert.NoError(t, errs[i])
		assert.Equal(t, "ab", texts[i])
	}
}

// Input that is not valid JSON reaches the tool layer as what the model
// sent (under provider.InvalidArgumentsKey), not as {}: otherwise the model
// is told that required properties are missing.
func TestStreamToolUseWithInvalidJSONKeepsTheRawInput(t *testing.T) {
	p := streamingProvider(t, func(s *sse) {
		s.messageStart(10)
		s.toolStart(0, "toolu_01", "bash_command")
		s.jsonDelta(0, `{"command": "ls`)
		s.jsonDelta(0, ` -la}`)
		s.blockStop(0)
		s.messageDelta("tool_use", 30)
		s.messageStop()
	})
	_, resp, err := collect(t, p, simpleRequest())
	require.NoError(t, err)
	require.Len(t, resp.Message.Content, 1)
	assert.JSONEq(t, `{"_invalid_arguments": "{\"command\": \"ls -la}"}`, string(resp.Message.Content[0].Input))
}
