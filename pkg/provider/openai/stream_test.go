package openai

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStreamTextDeltasInOrder(t *testing.T) {
	fs := newFakeServer(t, sseReply(roleChunk(), textChunk("Hel"), textChunk("lo"), textChunk(" world"),
		finishChunk("stop"), usageChunk(12, 3), done))
	resp, events, err := run(t, fs.provider(t, "k"), simpleRequest())
	require.NoError(t, err)

	assert.Equal(t, []provider.Event{
		provider.TextDelta{Index: 0, Text: "Hel"},
		provider.TextDelta{Index: 0, Text: "lo"},
		provider.TextDelta{Index: 0, Text: " world"},
	}, events)
	assert.Equal(t, provider.RoleAssistant, resp.Message.Role)
	assert.Equal(t, []provider.Block{provider.TextBlock("Hello world")}, resp.Message.Content)
	assert.Equal(t, provider.StopEndTurn, resp.StopReason)
	assert.Equal(t, "stop", resp.RawStopReason)
	assert.Equal(t, provider.Usage{InputTokens: 12, OutputTokens: 3}, resp.Usage)
}

// The final chunk's prompt_tokens_details.cached_tokens becomes
// CacheReadTokens; InputTokens stays the whole prompt.
func TestStreamUsageReportsCachedTokens(t *testing.T) {
	fs := newFakeServer(t, sseReply(roleChunk(), textChunk("ok"), finishChunk("stop"), cachedUsageChunk(2000, 1536, 9), done))
	resp, _, err := run(t, fs.provider(t, "k"), simpleRequest())
	require.NoError(t, err)
	assert.Equal(t, provider.Usage{InputTokens: 2000, OutputTokens: 9, CacheReadTokens: 1536}, resp.Usage)
}

func TestStreamToolCallArgumentsSplitAcrossChunks(t *testing.T) {
	fs := newFakeServer(t, sseReply(roleChunk(), textChunk("Reading."),
		toolChunk(tc(0, "call_abc", "read_file", "")),
		toolChunk(tc(0, "", "", `{"pa`)),
		toolChunk(tc(0, "", "", `th": "a.go"`)),
		toolChunk(tc(0, "", "", `}`)),
		finishChunk("tool_calls"), usageChunk(5, 7), done))
	resp, events, err := run(t, fs.provider(t, "k"), simpleRequest())
	require.NoError(t, err)

	assert.Equal(t, []provider.Event{
		provider.TextDelta{Index: 0, Text: "Reading."},
		provider.ToolUseStart{Index: 1, ID: "call_abc", Name: "read_file"},
		provider.ToolUseDelta{Index: 1, PartialJSON: `{"pa`},
		provider.ToolUseDelta{Index: 1, PartialJSON: `th": "a.go"`},
		provider.ToolUseDelta{Index: 1, PartialJSON: `}`},
	}, events)
	require.Len(t, resp.Message.Content, 2)
	assert.Equal(t, provider.TextBlock("Reading."), resp.Message.Content[0])
	tu := resp.Message.Content[1]
	assert.Equal(t, provider.BlockToolUse, tu.Kind)
	assert.Equal(t, "call_abc", tu.ToolUseID)
	assert.Equal(t, "read_file", tu.ToolName)
	assert.JSONEq(t, `{"path":"a.go"}`, string(tu.Input))
	assert.Equal(t, provider.StopToolUse, resp.StopReason)
	assert.Equal(t, provider.Usage{InputTokens: 5, OutputTokens: 7}, resp.Usage)
}

func TestStreamParallelToolCallsInterleaved(t *testing.T) {
	fs := newFakeServer(t, sseReply(roleChunk(),
		toolChunk(tc(0, "call_a", "read_file", "")),
		toolChunk(tc(1, "call_b", "list_dir", "")),
		toolChunk(tc(0, "", "", `{"path":`)),
		toolChunk(tc(1, "", "", `{"dir":`)),
		toolChunk(tc(1, "", "", `"src"}`)),
		toolChunk(tc(0, "", "", `"x.go"}`)),
		finishChunk("tool_calls"), done))
	resp, events, err := run(t, fs.provider(t, ""), simpleRequest())
	require.NoError(t, err)

	assert.Equal(t, []provider.Event{
		provider.ToolUseStart{Index: 1, ID: "call_a", Name: "read_file"},
		provider.ToolUseStart{Index: 2, ID: "call_b", Name: "list_dir"},
		provider.ToolUseDelta{Index: 1, PartialJSON: `{"path":`},
		provider.ToolUseDelta{Index: 2, PartialJSON: `{"dir":`},
		provider.ToolUseDelta{Index: 2, PartialJSON: `"src"}`},
		provider.ToolUseDelta{Index: 1, PartialJSON: `"x.go"}`},
	}, events)
	require.Len(t, resp.Message.Content, 2)
	assert.Equal(t, "call_a", resp.Message.Content[0].ToolUseID)
	assert.JSONEq(t, `{"path":"x.go"}`, string(resp.Message.Content[0].Input))
	assert.Equal(t, "call_b", resp.Message.Content[1].ToolUseID)
	assert.JSONEq(t, `{"dir":"src"}`, string(resp.Message.Content[1].Input))
	assert.Equal(t, provider.StopToolUse, resp.StopReason)
}

func TestStreamWholeToolCallInOneChunkWithStop(t *testing.T) {
	// Ollama: the whole call in one chunk, then finish_reason "stop".
	fs := newFakeServer(t, sseReply(
		toolChunk(tc(0, "call_x", "grep", `{"pattern":"TODO"}`)),
		finishChunk("stop"), usageChunk(1, 2), done))
	resp, events, err := run(t, fs.provider(t, ""), simpleRequest())
	require.NoError(t, err)

	assert.Equal(t, []provider.Event{
		provider.ToolUseStart{Index: 1, ID: "call_x", Name: "grep"},
		provider.ToolUseDelta{Index: 1, PartialJSON: `{"pattern":"TODO"}`},
	}, events)
	require.Len(t, resp.Message.Content, 1)
	assert.JSONEq(t, `{"pattern":"TODO"}`, string(resp.Message.Content[0].Input))
	assert.Equal(t, provider.StopToolUse, resp.StopReason)
	assert.Equal(t, "stop", resp.RawStopReason)
}

func TestStreamSeveralCallsUnderIndexZero(t *testing.T) {
	// Older Ollama: every call at index 0, told apart by id.
	fs := newFakeServer(t, sseReply(
		toolChunk(tc(0, "call_1", "a", `{}`)),
		toolChunk(tc(0, "call_2", "b", `{"n":1}`)),
		finishChunk("stop"), done))
	resp, events, err := run(t, fs.provider(t, ""), simpleRequest())
	require.NoError(t, err)

	assert.Contains(t, events, provider.ToolUseStart{Index: 2, ID: "call_2", Name: "b"})
	require.Len(t, resp.Message.Content, 2)
	assert.Equal(t, "a", resp.Message.Content[0].ToolName)
	assert.Equal(t, "b", resp.Message.Content[1].ToolName)
	assert.JSONEq(t, `{"n":1}`, string(resp.Message.Content[1].Input))
}

func TestStreamMissingToolCallIDs(t *testing.T) {
	fs := newFakeServer(t, sseReply(
		toolChunk(tc(0, "", "a", `{}`), tc(1, "", "b", `{}`)),
		finishChunk("tool_calls"), done))
	resp, events, err := run(t, fs.provider(t, ""), simpleRequest())
	require.NoError(t, err)

	require.Len(t, resp.Message.Content, 2)
	id0, id1 := resp.Message.Content[0].ToolUseID, resp.Message.Content[1].ToolUseID
	assert.True(t, strings.HasPrefix(id0, "call_0_"), id0)
	assert.True(t, strings.HasPrefix(id1, "call_1_"), id1)
	assert.NotEqual(t, id0, id1)
	assert.Equal(t, provider.ToolUseStart{Index: 1, ID: id0, Name: "a"}, events[0])
}

func TestStreamToolArgumentsNormalised(t *testing.T) {
	fs := newFakeServer(t, sseReply(
		toolChunk(tc(0, "c0", "broken", `{"path": `)),
		toolChunk(tc(1, "c1", "noargs", "")),
		toolChunk(tc(2, "c2", "nullargs", "null")),
		toolChunk(tc(3, "c3", "array", "[1,2]")),
		finishChunk("tool_calls"), done))
	resp, _, err := run(t, fs.provider(t, ""), simpleRequest())
	require.NoError(t, err)

	require.Len(t, resp.Message.Content, 4)
	var broken map[string]string
	require.NoError(t, json.Unmarshal(resp.Message.Content[0].Input, &broken))
	assert.Equal(t, map[string]string{"_invalid_arguments": `{"path": `}, broken)
	assert.JSONEq(t, `{}`, string(resp.Message.Content[1].Input))
	assert.JSONEq(t, `{}`, string(resp.Message.Content[2].Input))
	assert.JSONEq(t, `{"_invalid_arguments":"[1,2]"}`, string(resp.Message.Content[3].Input))
}

func TestStreamFinishReasons(t *testing.T) {
	cases := []struct {
		finish string
		want   provider.StopReason
	}{
		{"length", provider.StopMaxTokens},
		{"content_filter", provider.StopOther},
		{"function_call", provider.StopToolUse},
		{"tool_calls", provider.StopToolUse},
		{"stop", provider.StopEndTurn},
	}
	for _, c := range cases {
		t.Run(c.finish, func(t *testing.T) {
			fs := newFakeServer(t, sseReply(textChunk("x"), finishChunk(c.finish), done))
			resp, _, err := run(t, fs.provider(t, ""), simpleRequest())
			require.NoError(t, err)
			assert.Equal(t, c.want, resp.StopReason)
			assert.Equal(t, c.finish, resp.RawStopReason)
		})
	}
}

func TestStreamLegacyFunctionCall(t *testing.T) {
	fs := newFakeServer(t, sseReply(
		chunk(choice(map[string]any{"function_call": map[string]any{"name": "f", "arguments": `{"a":`}}, nil)),
		chunk(choice(map[string]any{"function_call": map[string]any{"arguments": `1}`}}, nil)),
		finishChunk("function_call"), done))
	resp, _, err := run(t, fs.provider(t, ""), simpleRequest())
	require.NoError(t, err)
	require.Len(t, resp.Message.Content, 1)
	assert.Equal(t, "f", resp.Message.Content[0].ToolName)
	assert.JSONEq(t, `{"a":1}`, string(resp.Message.Content[0].Input))
	assert.Equal(t, provider.StopToolUse, resp.StopReason)
}
