package anthropic

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/goldentest"
	"github.com/magenta-nvim/magenta/pkg/provider"
)

// searchStream writes a reply in which the API searched the web itself:
// a server_tool_use (its query streamed as input_json_delta), the
// web_search_tool_result, then text citing a result (citations_delta),
// as the Messages API streams them.
func searchStream(s *sse) {
	s.messageStart(10)
	s.textStart(0)
	s.textDelta(0, "Let me search.")
	s.blockStop(0)
	s.blockStart(1, obj{"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": obj{}})
	s.jsonDelta(1, `{"query": "neovim `)
	s.jsonDelta(1, `0.11 release"}`)
	s.blockStop(1)
	s.blockStart(2, obj{"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01", "content": []any{
		obj{"type": "web_search_result", "title": "Neovim 0.11 news", "url": "https://neovim.io/doc/user/news-0.11.html",
			"encrypted_content": "EqgfCioIARgBIiQ3YTAwMjY1Mi1", "page_age": "March 26, 2025"},
		obj{"type": "web_search_result", "title": "Releases", "url": "https://github.com/neovim/neovim/releases",
			"encrypted_content": "EpoBCioIARgBIiQ", "page_age": nil},
	}})
	s.blockStop(2)
	s.blockStart(3, obj{"type": "text", "text": "", "citations": []any{}})
	s.delta(3, obj{"type": "citations_delta", "citation": obj{"type": "web_search_result_location",
		"cited_text": "Neovim 0.11 was released", "url": "https://neovim.io/doc/user/news-0.11.html",
		"title": "Neovim 0.11 news", "encrypted_index": "Eo8BCioIAhgBIiQyYjQ0OWJmZi1"}})
	s.textDelta(3, "Neovim 0.11 came out in March 2025.")
	s.blockStop(3)
	s.messageDelta("end_turn", 40)
	s.messageStop()
}

func TestServerSearchStreamAndSendBack(t *testing.T) {
	var n atomic.Int32
	second := make(chan []byte, 1)
	p, _ := newTestProvider(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if n.Add(1) == 1 {
			var sent struct{ Tools []map[string]any }
			assert.NoError(t, json.Unmarshal(body, &sent))
			assert.Equal(t, []map[string]any{{"type": "web_search_20250305", "name": "web_search", "max_uses": 3.0,
				"cache_control": map[string]any{"type": "ephemeral"}}}, sent.Tools)
			searchStream(startSSE(w))
			return
		}
		second <- body
		startSSE(w).textMessage("end_turn", "ok")
	})
	req := provider.Request{
		Model:        "claude-test",
		Messages:     []provider.Message{{Role: provider.RoleUser, Content: []provider.Block{provider.TextBlock("when was neovim 0.11 released?")}}},
		ServerSearch: &provider.ServerSearch{MaxUses: 3},
	}
	events, resp, err := collect(t, p, req)
	require.NoError(t, err)
	for _, e := range events {
		_, isTool := e.(provider.ToolUseStart)
		_, isDelta := e.(provider.ToolUseDelta)
		assert.False(t, isTool || isDelta, "the server's search runs no tool of ours: %#v", e)
	}
	assert.Equal(t, []provider.Event{
		provider.TextDelta{Index: 0, Text: "Let me search."},
		provider.TextDelta{Index: 3, Text: "Neovim 0.11 came out in March 2025."},
	}, events)
	assert.Equal(t, provider.StopEndTurn, resp.StopReason)

	blocks := resp.Message.Content
	require.Len(t, blocks, 4)
	use, result, cited := blocks[1], blocks[2], blocks[3]
	assert.Equal(t, provider.BlockServerToolUse, use.Kind)
	assert.Equal(t, "srvtoolu_01", use.ToolUseID)
	assert.Equal(t, "web_search", use.ToolName)
	assert.JSONEq(t, `{"query":"neovim 0.11 release"}`, string(use.Input))
	assert.Equal(t, provider.BlockServerToolResult, result.Kind)
	assert.Equal(t, []provider.Source{{Title: "Neovim 0.11 news", URL: "https://neovim.io/doc/user/news-0.11.html"},
		{Title: "Releases", URL: "https://github.com/neovim/neovim/releases"}}, result.Sources)
	assert.Equal(t, provider.BlockText, cited.Kind)
	assert.Equal(t, "Neovim 0.11 came out in March 2025.", cited.Text)
	assert.Equal(t, []provider.Source{{Title: "Neovim 0.11 news", URL: "https://neovim.io/doc/user/news-0.11.html"}}, cited.Sources)
	assert.Empty(t, blocks[0].Raw, "plain text needs no raw form")

	// The blocks survive a save (the thread's JSON) and go back verbatim.
	saved, err := json.Marshal(resp.Message)
	require.NoError(t, err)
	var reopened provider.Message
	require.NoError(t, json.Unmarshal(saved, &reopened))
	req.Messages = append(req.Messages, reopened, provider.Message{Role: provider.RoleUser, Content: []provider.Block{provider.TextBlock("thanks")}})
	_, _, err = collect(t, p, req)
	require.NoError(t, err)
	var pretty bytes.Buffer
	require.NoError(t, json.Indent(&pretty, <-second, "", "  "))
	goldentest.Assert(t, "testdata/server_search_request.golden", pretty.String()+"\n")
}

// A search the API could not make comes back as an error code, drawn as
// such; the block still goes back.
func TestServerSearchError(t *testing.T) {
	p := streamingProvider(t, func(s *sse) {
		s.messageStart(10)
		s.blockStart(0, obj{"type": "server_tool_use", "id": "srvtoolu_02", "name": "web_search", "input": obj{"query": "x"}})
		s.blockStop(0)
		s.blockStart(1, obj{"type": "web_search_tool_result", "tool_use_id": "srvtoolu_02",
			"content": obj{"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"}})
		s.blockStop(1)
		s.messageDelta("end_turn", 5)
		s.messageStop()
	})
	_, resp, err := collect(t, p, simpleRequest())
	require.NoError(t, err)
	require.Len(t, resp.Message.Content, 2)
	assert.JSONEq(t, `{"query":"x"}`, string(resp.Message.Content[0].Input))
	res := resp.Message.Content[1]
	assert.True(t, res.IsError)
	assert.Equal(t, "max_uses_exceeded", res.Text)
	assert.Contains(t, string(res.Raw), `"error_code":"max_uses_exceeded"`)
}

// A cited text block whose kept form no longer matches its text goes as
// plain text; server blocks saved without their raw form are left out.
func TestServerSearchStaleRawBlocks(t *testing.T) {
	p, got := capturingProvider(t, testKey)
	req := simpleRequest()
	cited := provider.TextBlock("edited")
	cited.Raw = json.RawMessage(`{"type":"text","text":"original","citations":[]}`)
	req.Messages = append(req.Messages,
		provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{
			{Kind: provider.BlockServerToolUse, ToolUseID: "s"}, {Kind: provider.BlockServerToolResult, ToolUseID: "s"}, cited}},
		provider.Message{Role: provider.RoleUser, Content: []provider.Block{provider.TextBlock("go on")}})
	_, _, err := collect(t, p, req)
	require.NoError(t, err)
	var body struct {
		Messages []struct{ Content []map[string]any }
	}
	require.NoError(t, json.Unmarshal((<-got).body, &body))
	assert.Equal(t, []map[string]any{{"type": "text", "text": "edited"}}, body.Messages[1].Content)
}
