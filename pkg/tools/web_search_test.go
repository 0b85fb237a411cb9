package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/httpfetch"
	"github.com/magenta-nvim/magenta/pkg/capabilities/searxng"
)

// searxngServer is a SearXNG-shaped server on loopback answering body.
func searxngServer(t *testing.T, status int, body string) *searxng.Searcher {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprint(w, body)
	}))
	t.Cleanup(srv.Close)
	s, err := searxng.New(searxng.Options{URL: srv.URL, Fetcher: httpfetch.New(httpfetch.Options{})})
	require.NoError(t, err)
	return s
}

func runSearch(s capabilities.WebSearcher, input string) Result {
	env := &capabilities.Environment{Cwd: "/ws", WebSearcher: s}
	return Default().Run(context.Background(), WebSearchName, Call{ID: "tu", ThreadID: "th", Input: json.RawMessage(input), Env: env})
}

func TestWebSearchResult(t *testing.T) {
	s := searxngServer(t, 200, `{"results":[
		{"url":"https://go.dev/doc/","title":"<b>Go</b> docs","content":"The Go\nprogramming language &amp; tools."},
		{"url":"https://pkg.go.dev/","title":"Packages","content":""},
		{"url":"https://go.dev/blog/","title":"Blog","content":"not wanted: maxResults is 2"}]}`)
	res := runSearch(s, `{"query":"golang docs","maxResults":2}`)
	require.False(t, res.IsError, res.Text)
	assert.Equal(t, `Web search for "golang docs": 2 results (searxng)

1. Go docs
   https://go.dev/doc/
   The Go programming language & tools.

2. Packages
   https://pkg.go.dev/
`, res.Text)
	assert.Equal(t, "2 results", res.Summary)
}

func TestWebSearchEmptyAndFailing(t *testing.T) {
	res := runSearch(searxngServer(t, 200, `{"results":[],"unresponsive_engines":[["google","timeout"]]}`), `{"query":"x"}`)
	require.False(t, res.IsError)
	assert.Contains(t, res.Text, "0 results")
	assert.Contains(t, res.Text, "These engines did not answer: google")

	res = runSearch(searxngServer(t, 200, `not json`), `{"query":"x"}`)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text, "web search failed: searxng at http://127.0.0.1:")
	assert.Contains(t, res.Text, "not JSON")
	assert.Equal(t, "search failed", res.Summary)

	res = runSearch(&deniedSearcher{}, `{"query":"x"}`)
	assert.True(t, res.IsError)
	assert.Equal(t, "The search was not made: the user declined.", res.Text)
}

type deniedSearcher struct{}

func (deniedSearcher) Search(context.Context, capabilities.WebSearchRequest) (*capabilities.WebSearchResponse, error) {
	return nil, &capabilities.DeniedError{What: "x", Reason: "the user declined"}
}

func TestWebSearchBadInput(t *testing.T) {
	s := &deniedSearcher{}
	for input, want := range map[string]string{
		`{"query":"  "}`:                "query must not be empty",
		`{"query":"x","maxResults":11}`: "maxResults must be between 1 and 10, not 11",
		`{"query":"x","maxResults":-1}`: "maxResults must be between 1 and 10",
		`{"query":"` + strings.Repeat("q", capabilities.WebSearchMaxQuery+1) + `"}`: "query must be at most 400 characters",
	} {
		res := runSearch(s, input)
		assert.True(t, res.IsError, input)
		assert.Contains(t, res.Text, want, input)
	}
	res := Default().Run(context.Background(), WebSearchName, Call{Input: json.RawMessage(`{"query":"x"}`), Env: &capabilities.Environment{}})
	assert.Equal(t, "this environment has no web search back end", res.Text)
}

func TestWebSearchOfferedOnlyWithABackEnd(t *testing.T) {
	offered := func(env *capabilities.Environment) bool {
		return OfferedSet(Default().OfferedIn(env))[WebSearchName]
	}
	assert.False(t, offered(&capabilities.Environment{}))
	assert.True(t, offered(&capabilities.Environment{WebSearcher: deniedSearcher{}}))
	spec, _ := Default().Tool(WebSearchName)
	desc := spec.Spec().Description
	assert.Contains(t, desc, fmt.Sprintf("from 1 to %d (default %d)", capabilities.WebSearchMaxResults, capabilities.WebSearchDefaultResults))
	assert.NotContains(t, desc, "{{")
}
