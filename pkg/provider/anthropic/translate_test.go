package anthropic

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/provider"
)

func TestBlockParam(t *testing.T) {
	img := provider.Block{Kind: provider.BlockImage, MediaType: "image/jpeg", Data: []byte("abc")}
	const imgJSON = `{"type":"image","source":{"type":"base64","media_type":"image/jpeg","data":"YWJj"}}`
	cases := []struct {
		name    string
		block   provider.Block
		want    string // JSON; "" when the block is dropped
		wantErr bool
	}{
		{name: "text", block: provider.TextBlock("hello"), want: `{"type":"text","text":"hello"}`},
		{name: "empty text is dropped", block: provider.TextBlock("")},
		{
			name:  "tool_use",
			block: provider.Block{Kind: provider.BlockToolUse, ToolUseID: "t1", ToolName: "grep", Input: json.RawMessage(` {"q":"x","n":[1,2]} `)},
			want:  `{"type":"tool_use","id":"t1","name":"grep","input":{"q":"x","n":[1,2]}}`,
		},
		{
			name:  "tool_use without input",
			block: provider.Block{Kind: provider.BlockToolUse, ToolUseID: "t2", ToolName: "pwd"},
			want:  `{"type":"tool_use","id":"t2","name":"pwd","input":{}}`,
		},
		{
			name:  "tool_use with null input",
			block: provider.Block{Kind: provider.BlockToolUse, ToolUseID: "t3", ToolName: "pwd", Input: json.RawMessage(`null`)},
			want:  `{"type":"tool_use","id":"t3","name":"pwd","input":{}}`,
		},
		{
			name:    "tool_use with non-object input",
			block:   provider.Block{Kind: provider.BlockToolUse, ToolUseID: "t4", ToolName: "x", Input: json.RawMessage(`[1]`)},
			wantErr: true,
		},
		{
			name:    "tool_use with broken input",
			block:   provider.Block{Kind: provider.BlockToolUse, ToolUseID: "t5", ToolName: "x", Input: json.RawMessage(`{"a":`)},
			wantErr: true,
		},
		{
			name:  "tool_result",
			block: provider.ToolResultBlock("t1", "found 3", false),
			want:  `{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"found 3"}]}`,
		},
		{
			name:  "tool_result error",
			block: provider.ToolResultBlock("t1", "no such file", true),
			want:  `{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":[{"type":"text","text":"no such file"}]}`,
		},
		{
			name:  "tool_result with image and empty text",
			block: provider.Block{Kind: provider.BlockToolResult, ToolUseID: "t1", Result: []provider.Block{provider.TextBlock(""), img}},
			want:  `{"type":"tool_result","tool_use_id":"t1","content":[` + imgJSON + `]}`,
		},
		{
			name:  "tool_result without content",
			block: provider.Block{Kind: provider.BlockToolResult, ToolUseID: "t1"},
			want:  `{"type":"tool_result","tool_use_id":"t1"}`,
		},
		{
			name:    "tool_result holding a tool_use",
			block:   provider.Block{Kind: provider.BlockToolResult, ToolUseID: "t1", Result: []provider.Block{{Kind: provider.BlockToolUse}}},
			wantErr: true,
		},
		{name: "image", block: img, want: imgJSON},
		{name: "unknown kind", block: provider.Block{Kind: "audio"}, wantErr: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, keep, err := blockParam(tc.block)
			if tc.wantErr {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			if tc.want == "" {
				assert.False(t, keep, "block should be dropped")
				return
			}
			require.True(t, keep)
			b, err := json.Marshal(got)
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, string(b))
		})
	}
}
