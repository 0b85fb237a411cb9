package chat

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

type stubSearcher struct{}

func (stubSearcher) Search(context.Context, capabilities.WebSearchRequest) (*capabilities.WebSearchResponse, error) {
	return &capabilities.WebSearchResponse{}, nil
}

// With search.anthropic, an Anthropic profile's requests carry the API's
// own search instead of web_search; the reply's searches and citations
// are drawn after it and go back as they came. An OpenAI profile keeps
// web_search.
func TestServerSearchReplaceWebSearchAndIsDrawn(t *testing.T) {
	h := newHarness(t, nil)
	h.app.SetOptions(config.Options{Profiles: testProfiles, Search: config.Search{Anthropic: true}})
	h.app.NewThreadIn(&capabilities.Environment{Name: "test", Cwd: t.TempDir(), WebSearcher: stubSearcher{}}, "be brief")
	h.screen.waitForText(t, "# New thread")
	h.app.Send("when was neovim 0.11 released?")
	call := h.fake.Next(t)
	assert.Equal(t, &provider.ServerSearch{MaxUses: provider.DefaultServerSearchUses}, call.Request.ServerSearch)
	assert.NotContains(t, toolNames(call), tools.WebSearchName, "the API's search stands in for ours")

	use := provider.Block{Kind: provider.BlockServerToolUse, ToolUseID: "srvtoolu_1", ToolName: "web_search",
		Input: json.RawMessage(`{"query":"neovim 0.11\nrelease"}`), Raw: json.RawMessage(`{"type":"server_tool_use","id":"srvtoolu_1"}`)}
	result := provider.Block{Kind: provider.BlockServerToolResult, ToolUseID: "srvtoolu_1", Raw: json.RawMessage(`{"type":"web_search_tool_result"}`),
		Sources: []provider.Source{{Title: "Neovim 0.11 news", URL: "https://neovim.io/news"}, {Title: "Releases", URL: "https://github.com/neovim/neovim/releases"}}}
	call.Text("Let me search.")
	call.Block(use)
	call.Block(result)
	cited := provider.Source{Title: "Neovim 0.11 news", URL: "https://neovim.io/news"}
	call.CitedText("It came out in March 2025.", json.RawMessage(`{"type":"text","citations":[]}`), cited, cited)
	call.Stop(provider.StopEndTurn)
	text := h.screen.waitForText(t, "sources cited:")
	assert.Contains(t, text, "It came out in March 2025.\n\nℹ searched the web for \"neovim 0.11 release\": 2 results\n\nℹ sources cited:\n  Neovim 0.11 news — https://neovim.io/news\n")

	h.app.Send("thanks")
	next := h.fake.Next(t)
	require.Len(t, next.Request.Messages, 3)
	sent := next.Request.Messages[1].Content
	require.Len(t, sent, 4)
	assert.Equal(t, use, sent[1])
	assert.Equal(t, result, sent[2])
	assert.Equal(t, json.RawMessage(`{"type":"text","citations":[]}`), sent[3].Raw)
	next.Reply("ok")

	h.app.SetProfile("slow")
	h.app.Send("and now?")
	third := h.fake.Next(t)
	assert.Nil(t, third.Request.ServerSearch)
	assert.Contains(t, toolNames(third), tools.WebSearchName, "OpenAI: our web_search")
	third.Reply("ok")
}

// A failed server search is drawn as a warning with the provider's code.
func TestServerSearchFailureDrawn(t *testing.T) {
	h := newHarness(t, nil)
	h.app.SetOptions(config.Options{Profiles: testProfiles, Search: config.Search{Anthropic: true}})
	h.app.NewThread()
	h.screen.waitForText(t, "# New thread")
	h.app.Send("search")
	call := h.fake.Next(t)
	call.Block(provider.Block{Kind: provider.BlockServerToolUse, ToolUseID: "s", Input: json.RawMessage(`{"query":"x"}`)})
	call.Block(provider.Block{Kind: provider.BlockServerToolResult, ToolUseID: "s", IsError: true, Text: "max_uses_exceeded"})
	call.Reply("Could not search.")
	h.screen.waitForText(t, `⚠ web search "x" failed: max_uses_exceeded`)
}

// The searches and citations are saved with the thread: a reopened
// thread draws them again and sends the blocks back as they came.
func TestServerSearchSavedAndReopened(t *testing.T) {
	dir := t.TempDir()
	h, _ := savingHarness(t, dir, nil)
	h.app.Send("search it")
	call := h.fake.Next(t)
	use := provider.Block{Kind: provider.BlockServerToolUse, ToolUseID: "srvtoolu_9", ToolName: "web_search",
		Input: json.RawMessage(`{"query":"go 1.26"}`), Raw: json.RawMessage(`{"type":"server_tool_use","id":"srvtoolu_9","name":"web_search","input":{"query":"go 1.26"}}`)}
	result := provider.Block{Kind: provider.BlockServerToolResult, ToolUseID: "srvtoolu_9",
		Raw:     json.RawMessage(`{"type":"web_search_tool_result","tool_use_id":"srvtoolu_9","content":[]}`),
		Sources: []provider.Source{{Title: "Go 1.26 Release Notes", URL: "https://go.dev/doc/go1.26"}}}
	call.Block(use)
	call.Block(result)
	call.CitedText("Go 1.26 is out.", json.RawMessage(`{"type":"text","text":"Go 1.26 is out.","citations":[{"type":"web_search_result_location","url":"https://go.dev/doc/go1.26"}]}`),
		provider.Source{Title: "Go 1.26 Release Notes", URL: "https://go.dev/doc/go1.26"})
	call.Stop(provider.StopEndTurn)
	h.screen.waitForText(t, "sources cited:")
	h.screen.waitForText(t, "ready")
	h.app.Close()

	h2, _ := savingHarness(t, dir, nil)
	h2.app.ShowThreads()
	h2.screen.waitForText(t, "search it")
	h2.app.Key("activate", h2.screen.lineOf(t, "search it"))
	text := h2.screen.waitForText(t, "Go 1.26 is out.")
	assert.Contains(t, text, "ℹ searched the web for \"go 1.26\": 1 result\n\nℹ sources cited:\n  Go 1.26 Release Notes — https://go.dev/doc/go1.26")
	h2.app.Send("more")
	next := h2.fake.Next(t)
	require.Len(t, next.Request.Messages, 3)
	got := next.Request.Messages[1].Content
	require.Len(t, got, 3)
	assert.JSONEq(t, string(use.Raw), string(got[0].Raw))
	assert.JSONEq(t, string(result.Raw), string(got[1].Raw))
	assert.Equal(t, result.Sources, got[1].Sources)
	assert.Contains(t, string(got[2].Raw), "web_search_result_location")
	next.Reply("ok")
}

// A reply the API paused (pause_turn) goes on in the same turn: the
// history is sent again with the paused reply last, a bounded number of
// times.
func TestPausedReplyContinues(t *testing.T) {
	h := newHarness(t, nil)
	h.app.Send("search a lot")
	call := h.fake.Next(t)
	call.Text("Searching…")
	call.Stop("pause_turn")
	next := h.fake.Next(t)
	require.Len(t, next.Request.Messages, 2)
	assert.Equal(t, provider.RoleAssistant, next.Request.Messages[1].Role, "the paused reply goes back last")
	for i := 0; i < maxPauseContinuations; i++ {
		next.Text(".")
		next.Stop("pause_turn")
		if i < maxPauseContinuations-1 {
			next = h.fake.Next(t)
		}
	}
	h.screen.waitForText(t, "ready")
}
