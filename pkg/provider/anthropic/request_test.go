package anthropic

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/provider"
)

type capturedRequest struct {
	path   string
	header http.Header
	body   []byte
}

// capturingProvider returns a provider using apiKey whose server records
// each request and answers it with a short text message.
func capturingProvider(t *testing.T, apiKey string) (provider.Provider, <-chan capturedRequest) {
	t.Helper()
	got := make(chan capturedRequest, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got <- capturedRequest{path: r.URL.Path, header: r.Header.Clone(), body: body}
		startSSE(w).textMessage("end_turn", "ok")
	}))
	t.Cleanup(srv.Close)
	p, err := New(Options{BaseURL: srv.URL, APIKey: apiKey, HTTPClient: srv.Client()})
	require.NoError(t, err)
	return p, got
}

func TestRequestBodyAndHeaders(t *testing.T) {
	p, got := capturingProvider(t, testKey)
	png := []byte{0x89, 'P', 'N', 'G'}
	req := provider.Request{
		Model:  "claude-sonnet-test",
		System: "You are helpful.",
		Messages: []provider.Message{
			{Role: provider.RoleUser, Content: []provider.Block{provider.TextBlock("list files")}},
			{Role: provider.RoleAssistant, Content: []provider.Block{
				provider.TextBlock("Sure."),
				{Kind: provider.BlockToolUse, ToolUseID: "toolu_1", ToolName: "ls"},
			}},
			{Role: provider.RoleUser, Content: []provider.Block{
				{Kind: provider.BlockToolResult, ToolUseID: "toolu_1", IsError: true, Result: []provider.Block{
					provider.TextBlock("permission denied"),
					{Kind: provider.BlockImage, MediaType: "image/png", Data: png},
				}},
				{Kind: provider.BlockImage, MediaType: "image/png", Data: png},
			}},
		},
		Tools: []provider.ToolSpec{{
			Name:        "ls",
			Description: "List a directory.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"dir":{"type":"string"}},"required":["dir"],"additionalProperties":false}`),
		}},
	}
	_, _, err := collect(t, p, req)
	require.NoError(t, err)
	c := <-got

	assert.Equal(t, "/v1/messages", c.path)
	assert.Equal(t, testKey, c.header.Get("x-api-key"))
	assert.NotEmpty(t, c.header.Get("anthropic-version"))
	assert.Contains(t, c.header.Get("content-type"), "application/json")
	assert.JSONEq(t, `{
		"model": "claude-sonnet-test",
		"max_tokens": 8192,
		"stream": true,
		"system": [{"type": "text", "text": "You are helpful.", "cache_control": {"type": "ephemeral"}}],
		"messages": [
			{"role": "user", "content": [{"type": "text", "text": "list files", "cache_control": {"type": "ephemeral"}}]},
			{"role": "assistant", "content": [
				{"type": "text", "text": "Sure."},
				{"type": "tool_use", "id": "toolu_1", "name": "ls", "input": {}}
			]},
			{"role": "user", "content": [
				{"type": "tool_result", "tool_use_id": "toolu_1", "is_error": true, "content": [
					{"type": "text", "text": "permission denied"},
					{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw=="}}
				]},
				{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw=="}, "cache_control": {"type": "ephemeral"}}
			]}
		],
		"tools": [{
			"name": "ls",
			"description": "List a directory.",
			"input_schema": {"type": "object", "properties": {"dir": {"type": "string"}}, "required": ["dir"], "additionalProperties": false},
			"cache_control": {"type": "ephemeral"}
		}]
	}`, string(c.body))
}

func TestRequestMaxTokensPassedThrough(t *testing.T) {
	p, got := capturingProvider(t, testKey)
	req := simpleRequest()
	req.MaxTokens = 1234
	_, _, err := collect(t, p, req)
	require.NoError(t, err)
	var body struct {
		MaxTokens int `json:"max_tokens"`
	}
	require.NoError(t, json.Unmarshal((<-got).body, &body))
	assert.Equal(t, 1234, body.MaxTokens)
}

// The SDK's environment defaults must not override or add to the options.
func TestEnvironmentDoesNotOverrideOptions(t *testing.T) {
	t.Setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:1")
	t.Setenv("ANTHROPIC_API_KEY", "env-key")
	t.Setenv("ANTHROPIC_AUTH_TOKEN", "env-token")
	t.Setenv("ANTHROPIC_CUSTOM_HEADERS", "x-from-env: 1")

	t.Run("explicit key", func(t *testing.T) {
		p, got := capturingProvider(t, testKey)
		_, _, err := collect(t, p, simpleRequest())
		require.NoError(t, err)
		c := <-got
		assert.Equal(t, testKey, c.header.Get("x-api-key"))
		assert.Empty(t, c.header.Get("authorization"))
		assert.Empty(t, c.header.Get("x-from-env"))
	})
	t.Run("empty key sends no key", func(t *testing.T) {
		p, got := capturingProvider(t, "")
		_, _, err := collect(t, p, simpleRequest())
		require.NoError(t, err)
		c := <-got
		assert.NotContains(t, c.header, "X-Api-Key")
		assert.Empty(t, c.header.Get("authorization"))
	})
}

func TestNewRejectsBadBaseURL(t *testing.T) {
	for _, u := range []string{"not a url", "ftp://example.com", "http://"} {
		_, err := New(Options{BaseURL: u})
		assert.Error(t, err, u)
	}
	_, err := New(Options{})
	assert.NoError(t, err, "empty options select the SDK defaults")
}

func TestBuildParamsRejectsBadInput(t *testing.T) {
	cases := map[string]provider.Request{
		"unknown role": {Messages: []provider.Message{{Role: "system", Content: []provider.Block{provider.TextBlock("x")}}}},
		"bad schema":   {Tools: []provider.ToolSpec{{Name: "t", InputSchema: json.RawMessage(`[1]`)}}},
		"bad block":    {Messages: []provider.Message{{Role: provider.RoleUser, Content: []provider.Block{{Kind: "video"}}}}},
	}
	for name, req := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := buildParams(req)
			pe := requireProviderError(t, err)
			assert.Equal(t, provider.ErrInvalid, pe.Kind)
			assert.False(t, pe.Retryable)
		})
	}
}

func TestToolWithoutSchemaGetsEmptyObjectSchema(t *testing.T) {
	params, err := buildParams(provider.Request{Tools: []provider.ToolSpec{{Name: "noop"}}})
	require.NoError(t, err)
	b, err := json.Marshal(params.Tools[0])
	require.NoError(t, err)
	assert.JSONEq(t, `{"name":"noop","input_schema":{"type":"object","properties":{}},"cache_control":{"type":"ephemeral"}}`, string(b))
}
