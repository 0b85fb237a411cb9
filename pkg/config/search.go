package config

import (
	"fmt"
	"net/url"
	"strings"
)

// Search configures the web_search tool's back ends:
// { searxng = { url = "http://127.0.0.1:8888" }, anthropic = true }.
// With neither, web_search is not offered.
type Search struct {
	// SearXNG is a SearXNG instance whose JSON API answers searches, for
	// every provider; nil: none.
	SearXNG *SearXNG `json:"searxng,omitempty"`
	// Anthropic lets profiles whose provider is Anthropic use the API's
	// own server-side web search in place of the web_search tool.
	Anthropic bool `json:"anthropic,omitempty"`
}

// SearXNG is one SearXNG instance.
type SearXNG struct {
	// URL is the instance's root; the search goes to {URL}/search.
	URL string `json:"url"`
}

// SearXNGURL is the configured instance's root, "" when none.
func (s Search) SearXNGURL() string {
	if s.SearXNG == nil {
		return ""
	}
	return strings.TrimSpace(s.SearXNG.URL)
}

// AnthropicFor reports whether profile p searches with Anthropic's
// server-side tool.
func (s Search) AnthropicFor(p Profile) bool {
	return s.Anthropic && p.Provider == ProviderAnthropic
}

func (s Search) validate() error {
	if s.SearXNG == nil {
		return nil
	}
	raw := s.SearXNGURL()
	u, err := url.Parse(raw)
	if raw == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("magenta options: search.searxng.url: %q must be the http or https URL of the instance's root, without a query (\"http://127.0.0.1:8888\")", raw)
	}
	return nil
}
