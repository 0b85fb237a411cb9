package openai

import (
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func okReply() []string { return []string{textChunk("ok"), finishChunk("stop"), done} }

// jsonOf re-encodes v so expectations can be written as JSON text.
func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

func TestRequestBody(t *testing.T) {
	fs := newFakeServer(t, sseReply(okReply()...))
	png := []byte{0x89, 'P', 'N', 'G'}
	dataURL := "data:image/png;base64," + base64.StdEncoding.EncodeToString(png)
	req := provider.Request{
		Model:     "qwen3",
		System:    "be brief",
		MaxTokens: 1024,
		Messages: []provider.Message{
			{Role: provider.RoleUser, Content: []provider.Block{provider.TextBlock("look")}},
			{Role: provider.RoleAssistant, Content: []provider.Block{
				provider.TextBlock("Sure."),
				{Kind: provider.BlockToolUse, ToolUseID: "call_1", ToolName: "read", Input: json.RawMessage(`{"p":"a"}`)},
				{Kind: provider.BlockToolUse, ToolUseID: "call_2", ToolName: "now"},
			}},
			{Role: provider.RoleUser, Content: []provider.Block{
				provider.ToolResultBlock("call_1", "file body", false),
				provider.ToolResultBlock("call_2", "boom", true),
				provider.TextBlock("and this"),
				{Kind: provider.BlockImage, MediaType: "image/png", Data: png},
			}},
		},
		Tools: []provider.ToolSpec{{
			Name: "read", Description: "Read a file",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"p":{"type":"string"}},"required":["p"]}`),
		}},
	}
	_, _, err := run(t, fs.provider(t, "sk-test"), req)
	require.NoError(t, err)

	got := fs.lastRequest(t)
	assert.Equal(t, "/v1/chat/completions", got.Path)
	assert.Equal(t, "Bearer sk-test", got.Header.Get("Authorization"))
	b := got.Body
	assert.Equal(t, "qwen3", b["model"])
	assert.Equal(t, true, b["stream"])
	assert.Equal(t, map[string]any{"include_usage": true}, b["stream_options"])
	assert.EqualValues(t, 1024, b["max_tokens"])
	assert.NotContains(t, b, "max_completion_tokens")

	assert.JSONEq(t, `[
		{"role":"system","content":"be brief"},
		{"role":"user","content":"look"},
		{"role":"assistant","content":"Sure.","tool_calls":[
			{"id":"call_1","type":"function","function":{"name":"read","arguments":"{\"p\":\"a\"}"}},
			{"id":"call_2","type":"function","function":{"name":"now","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"call_1","content":"file body"},
		{"role":"tool","tool_call_id":"call_2","content":"Error: boom"},
		{"role":"user","content":[
			{"type":"text","text":"and this"},
			{"type":"image_url","image_url":{"url":"`+dataURL+`"}}]}
	]`, jsonOf(t, b["messages"]))
	assert.JSONEq(t, `[{"type":"function","function":{"name":"read","description":"Read a file",
		"parameters":{"type":"object","properties":{"p":{"type":"string"}},"required":["p"]}}}]`,
		jsonOf(t, b["tools"]))
}

func TestRequestWithoutKeyIgnoresEnvironment(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-from-env")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/elsewhere/")
	t.Setenv("OPENAI_ORG_ID", "org-env")
	fs := newFakeServer(t, sseReply(okReply()...))
	_, _, err := run(t, fs.provider(t, ""), simpleRequest())
	require.NoError(t, err)

	got := fs.lastRequest(t)
	assert.Equal(t, "/v1/chat/completions", got.Path)
	assert.Empty(t, got.Header.Values("Authorization"))
	assert.Empty(t, got.Header.Values("OpenAI-Organization"))
	assert.NotContains(t, got.Body, "max_tokens", "MaxTokens 0 sends no limit")
	assert.NotContains(t, got.Body, "max_completion_tokens")
	assert.NotContains(t, got.Body, "tools")
}

func TestToolResultImagesFollowInUserMessage(t *testing.T) {
	fs := newFakeServer(t, sseReply(okReply()...))
	img := provider.Block{Kind: provider.BlockImage, MediaType: "image/jpeg", Data: []byte("jpg")}
	req := simpleRequest()
	req.Messages = append(req.Messages,
		provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{
			{Kind: provider.BlockToolUse, ToolUseID: "call_s", ToolName: "screenshot", Input: json.RawMessage(`{}`)},
		}},
		provider.Message{Role: provider.RoleUser, Content: []provider.Block{{
			Kind: provider.BlockToolResult, ToolUseID: "call_s",
			Result: []provider.Block{provider.TextBlock("captured"), img},
		}}},
	)
	_, _, err := run(t, fs.provider(t, ""), req)
	require.NoError(t, err)

	msgs := fs.lastRequest(t).Body["messages"].([]any)
	require.Len(t, msgs, 4)
	assert.JSONEq(t, `{"role":"tool","tool_call_id":"call_s",
		"content":"captured\n[1 image(s) attached in the next user message]"}`, jsonOf(t, msgs[2]))
	assert.JSONEq(t, `{"role":"user","content":[
		{"type":"text","text":"Image(s) returned by tool call call_s:"},
		{"type":"image_url","image_url":{"url":"data:image/jpeg;base64,`+
		base64.StdEncoding.EncodeToString([]byte("jpg"))+`"}}]}`, jsonOf(t, msgs[3]))
}

func TestMaxTokensFieldChoice(t *testing.T) {
	req := simpleRequest()
	req.MaxTokens = 99

	p, err := buildParams(req, true)
	require.NoError(t, err)
	body := jsonOf(t, p)
	assert.Contains(t, body, `"max_completion_tokens":99`)
	assert.NotContains(t, body, `"max_tokens"`)

	for base, want := range map[string]bool{
		"":                           true,
		"https://api.openai.com/v1":  true,
		"http://localhost:11434/v1":  false,
		"http://127.0.0.1:8000/v1/":  false,
		"https://llm.example/openai": false,
	} {
		pv, err := New(Options{BaseURL: base})
		require.NoError(t, err)
		assert.Equal(t, want, pv.(*client).completionTokens, base)
	}
}

func TestNormalizeBaseURL(t *testing.T) {
	for in, want := range map[string]string{
		"":                           "https://api.openai.com/v1/",
		"http://localhost:11434/v1":  "http://localhost:11434/v1/",
		"http://localhost:11434/v1/": "http://localhost:11434/v1/",
		" http://host:8080 ":         "http://host:8080/",
		"https://proxy/llama":        "https://proxy/llama/",
	} {
		got, err := normalizeBaseURL(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, bad := range []string{"localhost:11434/v1", "ftp://x/v1", "/v1", "http://%zz"} {
		_, err := New(Options{BaseURL: bad})
		assert.Error(t, err, bad)
	}
}

func TestInvalidToolSchemaIsRejected(t *testing.T) {
	req := simpleRequest()
	req.Tools = []provider.ToolSpec{{Name: "t", InputSchema: json.RawMessage(`[1]`)}}
	_, err := buildParams(req, false)
	pe := requireProviderError(t, err, provider.ErrInvalid)
	assert.False(t, pe.Retryable)
}
