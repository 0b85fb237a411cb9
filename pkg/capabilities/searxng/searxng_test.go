package searxng_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/httpfetch"
	"github.com/magenta-nvim/magenta/pkg/capabilities/searxng"
)

// answer is a SearXNG-shaped answer (trimmed from a real instance's).
const answer = `{"query":"go generics","number_of_results":0,"results":[
 {"url":"https://go.dev/doc/tutorial/generics","title":"Tutorial: <b>Getting started</b> with generics","content":"This tutorial introduces the basics of <span class=\"highlight\">generics</span> in Go &amp; more.","engine":"duckduckgo","engines":["duckduckgo","brave"],"score":4.0,"category":"general"},
 {"url":"https://go.dev/doc/tutorial/generics","title":"duplicate","content":"same url"},
 {"url":"javascript:alert(1)","title":"not http","content":"x"},
 {"url":42,"title":"wrong type"},
 {"url":"https://example.com/a","title":"","content":"line one\n\tline\u0007two"},
 {"url":"https://example.com/b","title":"B","content":"b"}
],"answers":[],"corrections":[],"infoboxes":[],"suggestions":[],"unresponsive_engines":[["google","timeout"],["bing","CAPTCHA"]]}`

// server is a SearXNG-shaped server on loopback.
func server(t *testing.T, h http.HandlerFunc) *httptest.Server {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func newSearcher(t *testing.T, base string, timeout time.Duration) *searxng.Searcher {
	s, err := searxng.New(searxng.Options{URL: base, Fetcher: httpfetch.New(httpfetch.Options{}), Timeout: timeout})
	require.NoError(t, err)
	return s
}

func TestSearchReadsResults(t *testing.T) {
	var got *http.Request
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		got = r
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, answer)
	})
	var checked []string
	s := newSearcher(t, srv.URL+"/searx/", 0)
	resp, err := s.Search(context.Background(), capabilities.WebSearchRequest{
		Query: "  go generics ", MaxResults: 3,
		CheckHost: func(_ context.Context, u *url.URL, addrs []netip.Addr) error {
			checked = append(checked, u.String())
			return nil
		},
	})
	require.NoError(t, err)
	assert.Equal(t, "/searx/search", got.URL.Path)
	assert.Equal(t, "go generics", got.URL.Query().Get("q"))
	assert.Equal(t, "json", got.URL.Query().Get("format"))
	assert.Equal(t, []string{srv.URL + "/searx/search?format=json&pageno=1&q=go+generics"}, checked, "the guard sees the URL before it is contacted")
	assert.Equal(t, "searxng", resp.Engine)
	assert.Equal(t, []capabilities.WebSearchResult{
		{Title: "Tutorial: Getting started with generics", URL: "https://go.dev/doc/tutorial/generics", Snippet: "This tutorial introduces the basics of generics in Go & more."},
		{Title: "https://example.com/a", URL: "https://example.com/a", Snippet: "line one line two"},
		{Title: "B", URL: "https://example.com/b", Snippet: "b"},
	}, resp.Results)
	assert.Equal(t, []string{"google", "bing"}, resp.Unresponsive)
}

func TestSearchFailuresAreClearErrors(t *testing.T) {
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	block := make(chan struct{})
	t.Cleanup(func() { close(block) })
	cases := []struct {
		name    string
		handler http.HandlerFunc
		base    string
		timeout time.Duration
		want    []string
	}{
		{name: "down", base: closed.URL, want: []string{"searxng at " + closed.URL + "/search", "connection refused"}},
		{name: "garbage", handler: func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "<html>Welcome to nginx</html>") },
			want: []string{"not JSON", "Welcome to nginx", "is the URL a SearXNG instance?"}},
		{name: "broken json", handler: func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, `{"results":[{"url":`) },
			want: []string{"not a SearXNG search result"}},
		{name: "no results list", handler: func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, `{"query":"x"}`) },
			want: []string{`no "results" list`}},
		{name: "json off", handler: func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusForbidden) },
			want: []string{"HTTP 403 Forbidden", "search.formats"}},
		{name: "server error", handler: func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusBadGateway) },
			want: []string{"HTTP 502 Bad Gateway"}},
		{name: "huge", handler: func(w http.ResponseWriter, _ *http.Request) {
			fmt.Fprint(w, `{"results":[`+strings.Repeat(" ", capabilities.WebSearchMaxBytes)+`]}`)
		}, want: []string{"more than 1024 KB"}},
		{name: "slow", timeout: 300 * time.Millisecond, handler: func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-block:
			case <-r.Context().Done():
			}
		}, want: []string{"timed out after 300ms"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base := c.base
			if c.handler != nil {
				base = server(t, c.handler).URL
			}
			start := time.Now()
			_, err := newSearcher(t, base, c.timeout).Search(context.Background(), capabilities.WebSearchRequest{Query: "q"})
			require.Error(t, err)
			for _, w := range c.want {
				assert.Contains(t, err.Error(), w)
			}
			assert.Less(t, time.Since(start), 10*time.Second, "never hangs")
		})
	}
}

func TestSearchCheckHostRefusal(t *testing.T) {
	hit := false
	srv := server(t, func(http.ResponseWriter, *http.Request) { hit = true })
	denied := &capabilities.DeniedError{What: "x", Reason: "the user declined"}
	_, err := newSearcher(t, srv.URL, 0).Search(context.Background(), capabilities.WebSearchRequest{
		Query:     "q",
		CheckHost: func(context.Context, *url.URL, []netip.Addr) error { return denied },
	})
	assert.ErrorIs(t, err, denied)
	assert.False(t, hit, "nothing is sent before the check passes")
}

func TestNewRefusesBadURLs(t *testing.T) {
	f := httpfetch.New(httpfetch.Options{})
	for _, bad := range []string{"", "localhost:8888", "ftp://x", "http://", "http://x/?q=1", "http://x/#f"} {
		_, err := searxng.New(searxng.Options{URL: bad, Fetcher: f})
		assert.Error(t, err, bad)
	}
	s, err := searxng.New(searxng.Options{URL: "https://search.example.com/sx", Fetcher: f})
	require.NoError(t, err)
	assert.Equal(t, "https://search.example.com/sx/search", s.URL())
}
