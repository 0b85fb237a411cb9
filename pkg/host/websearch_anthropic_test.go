package host_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/goldentest"
	"github.com/magenta-nvim/magenta/pkg/host"
	"github.com/magenta-nvim/magenta/pkg/nvimtest"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/anthropic"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
)

// searchReply is a reply in which the Messages API searched the web
// itself, streamed as the API streams it.
var searchReply = providertest.Reply{StopReason: "end_turn", Blocks: []providertest.ReplyBlock{
	{Type: "text", Text: "Let me search."},
	{Type: "server_tool_use", Start: `{"type":"server_tool_use","id":"srvtoolu_01","name":"web_search","input":{}}`,
		Deltas: []string{`{"type":"input_json_delta","partial_json":"{\"query\":\"neovim 0.11 release\"}"}`}},
	{Type: "web_search_tool_result", Start: `{"type":"web_search_tool_result","tool_use_id":"srvtoolu_01","content":[
		{"type":"web_search_result","title":"Neovim 0.11 news","url":"https://neovim.io/doc/user/news-0.11.html","encrypted_content":"EqgfCioIARgB","page_age":"March 26, 2025"},
		{"type":"web_search_result","title":"Releases","url":"https://github.com/neovim/neovim/releases","encrypted_content":"EpoBCioI"}]}`},
	{Type: "cited_text", Start: `{"type":"text","text":"","citations":[]}`, Deltas: []string{
		`{"type":"citations_delta","citation":{"type":"web_search_result_location","cited_text":"Neovim 0.11 was released","url":"https://neovim.io/doc/user/news-0.11.html","title":"Neovim 0.11 news","encrypted_index":"Eo8BCioI"}}`,
		`{"type":"text_delta","text":"Neovim 0.11 came out in March 2025."}`}},
}}

// With search = { anthropic = true }, an Anthropic profile's request
// offers the API's own search, through the real adapter over HTTP+SSE;
// the chat draws the search and the citations, and the next request
// sends the blocks back verbatim.
func TestAnthropicServerSearchInNeovim(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		srv := providertest.NewAnthropicServer(t, searchReply,
			providertest.Reply{StopReason: "end_turn", Blocks: []providertest.ReplyBlock{{Type: "text", Text: "You're welcome."}}})
		n := nvimtest.Start(t, bin)
		n.StartHost(host.Options{Version: "test", NewProvider: func(config.Profile) (provider.Provider, error) {
			return anthropic.New(anthropic.Options{BaseURL: srv.URL, APIKey: "k"})
		}})
		n.Setup(`{ profiles = { { name = "claude", provider = "anthropic", model = "model-a" } }, sandbox = { enabled = false },
			search = { anthropic = true } }`)
		n.Command("Magenta toggle")
		n.WaitForText("display", "# New thread")
		n.Type("when was neovim 0.11 released?")
		n.Keys("<CR>")
		n.WaitForText("display", "sources cited:")
		n.WaitForText("display", "ready")
		goldentest.Assert(t, "testdata/web_search_anthropic.golden", chatDump(bufferDump(n)))

		n.FocusRole("input")
		n.Type("thanks")
		n.Keys("<CR>")
		n.WaitForText("display", "You're welcome.")
		bodies := srv.Bodies()
		require.Len(t, bodies, 2)
		var first, second struct {
			Tools    []map[string]any
			Messages []struct {
				Role    string
				Content []map[string]any
			}
		}
		require.NoError(t, json.Unmarshal(bodies[0], &first))
		require.NoError(t, json.Unmarshal(bodies[1], &second))
		var names []any
		for _, tool := range first.Tools {
			names = append(names, tool["name"])
			if tool["name"] == "web_search" {
				assert.Equal(t, "web_search_20250305", tool["type"], "the API's search, not a tool of ours")
				assert.EqualValues(t, provider.DefaultServerSearchUses, tool["max_uses"])
			}
		}
		assert.Contains(t, names, "web_search")
		sent := second.Messages[1].Content
		require.Len(t, sent, 4)
		assert.Equal(t, "server_tool_use", sent[1]["type"])
		assert.Equal(t, map[string]any{"query": "neovim 0.11 release"}, sent[1]["input"])
		assert.Equal(t, "web_search_tool_result", sent[2]["type"])
		assert.Contains(t, string(bodies[1]), `"encrypted_content":"EqgfCioIARgB"`, "the results go back as they came")
		assert.Contains(t, string(bodies[1]), `"encrypted_index":"Eo8BCioI"`, "and the citations")
	})
}
