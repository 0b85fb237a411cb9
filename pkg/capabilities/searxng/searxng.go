// Package searxng is a capabilities.WebSearcher over a SearXNG instance's
// JSON API (GET {url}/search?q=…&format=json), the self-hostable engine
// magenta offers to every provider (search = { searxng = { url } }).
//
// The request goes through a capabilities.Fetcher (httpfetch in the
// host), so it gets the fetch's pinning, body cap, timeout and redirect
// rules, and the guard's CheckHost sees the back end's addresses before
// it is contacted. The answer is parsed leniently (Parse): results that
// are not usable are skipped, text is made plain and cut to the
// capabilities.WebSearchMax* bounds.
package searxng

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// Engine is the name results carry.
const Engine = "searxng"

// Options configures a Searcher.
type Options struct {
	// URL is the instance's root ("http://127.0.0.1:8888", or with a path
	// prefix when it is served under one).
	URL string
	// Fetcher makes the HTTP request; required.
	Fetcher capabilities.Fetcher
	// Timeout bounds one search; 0 means capabilities.WebSearchTimeout.
	Timeout time.Duration
}

// Searcher searches one SearXNG instance. Safe for concurrent use.
type Searcher struct {
	search  *url.URL // {URL}/search
	fetcher capabilities.Fetcher
	timeout time.Duration
}

var _ capabilities.WebSearcher = (*Searcher)(nil)

// New checks opts.URL and returns a Searcher; it contacts nothing.
func New(opts Options) (*Searcher, error) {
	base, err := url.Parse(strings.TrimSpace(opts.URL))
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" || base.RawQuery != "" || base.Fragment != "" {
		return nil, fmt.Errorf("searxng: url %q must be an http or https URL with a host and no query (the instance's root)", opts.URL)
	}
	if opts.Fetcher == nil {
		return nil, fmt.Errorf("searxng: no fetcher")
	}
	search := *base
	search.Path = strings.TrimSuffix(base.Path, "/") + "/search"
	search.RawPath = ""
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = capabilities.WebSearchTimeout
	}
	return &Searcher{search: &search, fetcher: opts.Fetcher, timeout: timeout}, nil
}

// URL is the search endpoint, for messages.
func (s *Searcher) URL() string { return s.search.String() }

// Search implements capabilities.WebSearcher.
func (s *Searcher) Search(ctx context.Context, req capabilities.WebSearchRequest) (*capabilities.WebSearchResponse, error) {
	query := strings.TrimSpace(req.Query)
	if query == "" {
		return nil, fmt.Errorf("searxng: empty query")
	}
	n := req.MaxResults
	if n <= 0 {
		n = capabilities.WebSearchDefaultResults
	}
	n = min(n, capabilities.WebSearchMaxResults)
	u := *s.search
	u.RawQuery = url.Values{"q": {query}, "format": {"json"}, "pageno": {"1"}}.Encode()
	resp, err := s.fetcher.Fetch(ctx, capabilities.FetchRequest{
		ThreadID: req.ThreadID, RequestID: req.RequestID,
		URL: u.String(), Accept: "application/json",
		Timeout: s.timeout, MaxBytes: capabilities.WebSearchMaxBytes,
		CheckHost: req.CheckHost,
	})
	if err != nil {
		return nil, fmt.Errorf("searxng at %s: %w", s.search.Redacted(), err)
	}
	if resp.Status != http.StatusOK {
		hint := ""
		if resp.Status == http.StatusForbidden || resp.Status == http.StatusTooManyRequests {
			// SearXNG answers 403 when the json format is not enabled,
			// 429 when its limiter blocks the client.
			hint = " (is \"json\" in search.formats of the instance's settings.yml, and its limiter off for this client?)"
		}
		return nil, fmt.Errorf("searxng at %s answered HTTP %s %s%s", s.search.Redacted(), strconv.Itoa(resp.Status), http.StatusText(resp.Status), hint)
	}
	if resp.Truncated {
		return nil, fmt.Errorf("searxng at %s answered more than %d KB: not a search answer", s.search.Redacted(), capabilities.WebSearchMaxBytes>>10)
	}
	results, unresponsive, err := Parse(resp.Body, n)
	if err != nil {
		return nil, fmt.Errorf("searxng at %s: %w", s.search.Redacted(), err)
	}
	return &capabilities.WebSearchResponse{Engine: Engine, Results: results, Unresponsive: unresponsive}, nil
}
