package openai

import (
	"bytes"
	"encoding/json"
	"image"
	"image/png"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/goldentest"
	"github.com/magenta-nvim/magenta/pkg/provider"
)

// The request body on the wire for a real 2×1 PNG in a user message (an
// @image) and in a tool result (get_file, MCP): data: URLs with the media
// type and base64; the tool result's image follows in a user message.
func TestImageRequestBodyGolden(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, image.NewNRGBA(image.Rect(0, 0, 2, 1))))
	img := provider.Block{Kind: provider.BlockImage, MediaType: "image/png", Data: b.Bytes()}
	req := provider.Request{
		Model: "gpt-test", MaxTokens: 1024,
		Messages: []provider.Message{
			{Role: provider.RoleUser, Content: []provider.Block{provider.TextBlock("The user attached the image a.png (PNG, 2×1, 70 bytes):"), img, provider.TextBlock("what is this?")}},
			{Role: provider.RoleAssistant, Content: []provider.Block{{Kind: provider.BlockToolUse, ToolUseID: "call_1", ToolName: "get_file", Input: json.RawMessage(`{"path":"b.png"}`)}}},
			{Role: provider.RoleUser, Content: []provider.Block{{Kind: provider.BlockToolResult, ToolUseID: "call_1", Result: []provider.Block{provider.TextBlock("b.png: an image. It follows."), img}}}},
		},
	}
	fs := newFakeServer(t, sseReply(okReply()...))
	_, _, err := run(t, fs.provider(t, "sk-test"), req)
	require.NoError(t, err)
	pretty, err := json.MarshalIndent(fs.lastRequest(t).Body, "", "  ")
	require.NoError(t, err)
	goldentest.Assert(t, "testdata/image_request.golden", string(pretty)+"\n")
}
