package anthropic

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

// imageRequest is a conversation holding a real 2×1 PNG where images
// go: a user message (an @image) and a tool result (get_file, MCP).
func imageRequest(t *testing.T) provider.Request {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, image.NewNRGBA(image.Rect(0, 0, 2, 1))))
	img := provider.Block{Kind: provider.BlockImage, MediaType: "image/png", Data: b.Bytes()}
	return provider.Request{
		Model: "claude-test", MaxTokens: 1024,
		Messages: []provider.Message{
			{Role: provider.RoleUser, Content: []provider.Block{provider.TextBlock("The user attached the image a.png (PNG, 2×1, 70 bytes):"), img, provider.TextBlock("what is this?")}},
			{Role: provider.RoleAssistant, Content: []provider.Block{{Kind: provider.BlockToolUse, ToolUseID: "toolu_1", ToolName: "get_file", Input: json.RawMessage(`{"path":"b.png"}`)}}},
			{Role: provider.RoleUser, Content: []provider.Block{{Kind: provider.BlockToolResult, ToolUseID: "toolu_1", Result: []provider.Block{provider.TextBlock("b.png: an image. It follows."), img}}}},
		},
	}
}

// The request body on the wire, with each image as a base64 source and
// its media type, in the user message and in the tool result.
func TestImageRequestBodyGolden(t *testing.T) {
	p, got := capturingProvider(t, testKey)
	_, err := p.Stream(t.Context(), imageRequest(t), func(provider.Event) {})
	require.NoError(t, err)
	var body any
	require.NoError(t, json.Unmarshal((<-got).body, &body))
	pretty, err := json.MarshalIndent(body, "", "  ")
	require.NoError(t, err)
	goldentest.Assert(t, "testdata/image_request.golden", string(pretty)+"\n")
}
