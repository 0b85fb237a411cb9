package anthropic

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/provider"
)

// scriptedProvider answers the n-th request with scripts[n] over real
// HTTP and SSE and keeps every request body.
func scriptedProvider(t *testing.T, scripts ...func(s *sse)) (provider.Provider, func() [][]byte) {
	t.Helper()
	var mu sync.Mutex
	var bodies [][]byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		n := len(bodies)
		bodies = append(bodies, body)
		mu.Unlock()
		if n >= len(scripts) {
			http.Error(w, "no script", http.StatusInternalServerError)
			return
		}
		scripts[n](startSSE(w))
	}))
	t.Cleanup(srv.Close)
	p, err := New(Options{BaseURL: srv.URL, APIKey: testKey, HTTPClient: srv.Client()})
	require.NoError(t, err)
	return p, func() [][]byte {
		mu.Lock()
		defer mu.Unlock()
		return append([][]byte(nil), bodies...)
	}
}

// The thinking before a tool call, its signature and a redacted block go
// back in the next request exactly as they came, in their place before
// the tool call; the request asks for thinking within the API's rules.
func TestThinkingRoundTripsIntoTheNextRequest(t *testing.T) {
	// Characters JSON may escape differently, and a long signature.
	thinking := "I should read <main.go> & check \"quotes\"\n\tthen edit — ünïcödé"
	signature := "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds" + "=="
	p, bodies := scriptedProvider(t,
		func(s *sse) {
			s.messageStart(10)
			s.blockStart(0, obj{"type": "thinking", "thinking": "", "signature": ""})
			s.delta(0, obj{"type": "thinking_delta", "thinking": thinking[:20]})
			s.delta(0, obj{"type": "thinking_delta", "thinking": thinking[20:]})
			s.delta(0, obj{"type": "signature_delta", "signature": signature})
			s.blockStop(0)
			s.blockStart(1, obj{"type": "redacted_thinking", "data": "ENCRYPTED=="})
			s.blockStop(1)
			s.toolStart(2, "toolu_1", "get_file")
			s.jsonDelta(2, `{"path":"main.go"}`)
			s.blockStop(2)
			s.messageDelta("tool_use", 30)
			s.messageStop()
		},
		func(s *sse) { s.textMessage("end_turn", "done") },
	)
	req := simpleRequest()
	req.Reasoning = provider.Reasoning{BudgetTokens: 4000}
	req.MaxTokens = 2000 // below the budget: raised
	var thought string
	resp, err := p.Stream(testCtx(t), req, func(e provider.Event) {
		if d, ok := e.(provider.ThinkingDelta); ok {
			thought += d.Text
		}
	})
	require.NoError(t, err)
	assert.Equal(t, thinking, thought)

	req.Messages = append(req.Messages, resp.Message, provider.Message{Role: provider.RoleUser,
		Content: []provider.Block{provider.ToolResultBlock("toolu_1", "package main", false)}})
	_, _, err = collect(t, p, req)
	require.NoError(t, err)

	sent := bodies()
	require.Len(t, sent, 2)
	var first struct {
		MaxTokens int `json:"max_tokens"`
		Thinking  struct {
			Type         string `json:"type"`
			BudgetTokens int    `json:"budget_tokens"`
		} `json:"thinking"`
		Temperature *float64 `json:"temperature"`
	}
	require.NoError(t, json.Unmarshal(sent[0], &first))
	assert.Equal(t, "enabled", first.Thinking.Type)
	assert.Equal(t, 4000, first.Thinking.BudgetTokens)
	assert.Equal(t, 4000+defaultMaxTokens, first.MaxTokens, "max_tokens must exceed the budget")
	assert.Nil(t, first.Temperature)

	var second struct {
		Messages []struct {
			Role    string            `json:"role"`
			Content []json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	require.NoError(t, json.Unmarshal(sent[1], &second))
	require.Len(t, second.Messages, 3)
	assistant := second.Messages[1]
	require.Equal(t, "assistant", assistant.Role)
	require.Len(t, assistant.Content, 3)
	var th struct{ Type, Thinking, Signature string }
	require.NoError(t, json.Unmarshal(assistant.Content[0], &th))
	assert.Equal(t, "thinking", th.Type)
	assert.True(t, th.Thinking == thinking, "thinking sent back byte for byte: %q", th.Thinking)
	assert.True(t, th.Signature == signature, "signature sent back byte for byte: %q", th.Signature)
	assert.JSONEq(t, `{"type":"redacted_thinking","data":"ENCRYPTED=="}`, string(assistant.Content[1]))
	assert.Contains(t, string(assistant.Content[2]), `"tool_use"`)
}

// max_tokens leaves room for the answer: unset, it is the budget plus the
// default; set above the budget, it is kept.
func TestThinkingMaxTokens(t *testing.T) {
	for _, tc := range []struct{ requested, want int }{{0, 3000 + defaultMaxTokens}, {3000, 3000 + defaultMaxTokens}, {20000, 20000}} {
		p, bodies := recordingProvider(t)
		req := simpleRequest()
		req.Reasoning = provider.Reasoning{BudgetTokens: 3000}
		req.MaxTokens = tc.requested
		_, _, err := collect(t, p, req)
		require.NoError(t, err)
		var body struct {
			MaxTokens int `json:"max_tokens"`
		}
		require.NoError(t, json.Unmarshal(bodies()[0], &body))
		assert.Equal(t, tc.want, body.MaxTokens, "requested %d", tc.requested)
	}
}

// Without a budget nothing about thinking is sent; a thinking block that
// lost its signature (a stream cut short) is left out of the history.
func TestNoThinkingConfigWithoutBudget(t *testing.T) {
	p, bodies := recordingProvider(t)
	req := simpleRequest()
	req.Messages = append(req.Messages,
		provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{{Kind: provider.BlockThinking, Thinking: "half"}, provider.TextBlock("hello")}},
		provider.Message{Role: provider.RoleUser, Content: []provider.Block{provider.TextBlock("again")}})
	_, _, err := collect(t, p, req)
	require.NoError(t, err)
	body := string(bodies()[0])
	assert.NotContains(t, body, `"thinking"`)
	assert.Contains(t, body, `"hello"`)
}
