package host_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/goldentest"
	"github.com/magenta-nvim/magenta/pkg/nvimtest"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// web_search against a SearXNG-shaped server on loopback: offered once
// search.searxng.url is set, the loopback engine asks (ALWAYS offered),
// the results reach the model as plain text and the chat shows the call,
// and after ALWAYS the next search does not ask.
func TestWebSearchSearXNGInNeovim(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"query":%q,"results":[
			{"url":"https://neovim.io/doc/user/lua.html","title":"Lua - <b>Neovim</b> docs","content":"Lua engineering in Nvim &amp; the vim module."},
			{"url":"https://github.com/neovim/neovim","title":"neovim/neovim","content":"Vim-fork focused on extensibility."}]}`, r.URL.Query().Get("q"))
	}))
	defer srv.Close()
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		hits.Store(0) // the engine serves every Neovim in turn
		n, fake := start(t, bin)
		n.Setup(`{ shell = { logRoot = "` + filepath.Join(n.Dir, "logs") + `" }, sandbox = { enabled = false },
			search = { searxng = { url = "` + srv.URL + `" } } }`)
		n.Command("Magenta toggle")
		n.WaitForText("display", "# New thread")
		n.Type("search the docs")
		n.Keys("<CR>")
		call := fake.Next(t)
		assert.Contains(t, specNames(call.Request.Tools), tools.WebSearchName, "offered with a back end")
		call.ToolUse("tu_s", tools.WebSearchName, map[string]any{"query": "neovim lua", "maxResults": 2})
		call.Stop(provider.StopToolUse)
		text := n.WaitForText("display", "> ALWAYS")
		assert.Contains(t, text, "resolves to 127.0.0.1: a loopback, private or link-local address")
		assert.Zero(t, hits.Load(), "nothing is sent before the answer")
		n.FocusRole("display")
		n.CursorTo("> ALWAYS")
		n.Keys("<CR>")
		next := fake.Next(t)
		res, isErr := lastResult(t, next)
		require.False(t, isErr, res)
		assert.Contains(t, res, "1. Lua - Neovim docs\n   https://neovim.io/doc/user/lua.html\n   Lua engineering in Nvim & the vim module.")
		n.WaitForText("display", "2 results")
		n.CursorTo("web_search: neovim lua")
		n.Keys("=") // expands the call: its input and result
		n.WaitForText("display", "result:")
		goldentest.Assert(t, "testdata/web_search.golden", chatDump(bufferDump(n)))

		next.ToolUse("tu_s2", tools.WebSearchName, map[string]any{"query": "neovim api"})
		next.Stop(provider.StopToolUse)
		third := fake.Next(t)
		res, isErr = lastResult(t, third)
		require.False(t, isErr, res)
		assert.Contains(t, res, `Web search for "neovim api"`, "ALWAYS: not asked again")
		third.Reply("found")
		n.WaitForText("display", "found")
		assert.EqualValues(t, 2, hits.Load())
	})
}

// Without a back end, web_search is not offered; a loopback engine the
// user declines sends nothing and tells the model.
func TestWebSearchNotOfferedOrDeclined(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := startShell(t, bin)
		n.Type("hi")
		n.Keys("<CR>")
		call := fake.Next(t)
		assert.NotContains(t, specNames(call.Request.Tools), tools.WebSearchName, "no back end: not offered")
		call.Reply("hello")
		n.WaitForText("display", "hello")

		n, fake = start(t, bin)
		n.Setup(`{ sandbox = { enabled = false }, search = { searxng = { url = "` + srv.URL + `" } } }`)
		n.Command("Magenta toggle")
		n.WaitForText("display", "# New thread")
		n.Type("search")
		n.Keys("<CR>")
		call = fake.Next(t)
		call.ToolUse("tu_d", tools.WebSearchName, map[string]any{"query": "secret plans"})
		call.Stop(provider.StopToolUse)
		n.WaitForText("display", "> NO")
		n.FocusRole("display")
		n.CursorTo("> NO")
		n.Keys("<CR>")
		next := fake.Next(t)
		res, isErr := lastResult(t, next)
		assert.True(t, isErr)
		assert.Equal(t, "The search was not made: the user declined.", res)
		assert.Zero(t, hits.Load())
		next.Reply("ok")
	})
}

func specNames(specs []provider.ToolSpec) []string {
	out := make([]string, len(specs))
	for i, s := range specs {
		out[i] = s.Name
	}
	return out
}
