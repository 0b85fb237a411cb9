package localenv

import (
	"github.com/magenta-nvim/magenta/pkg/approval"
	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/guard"
	"github.com/magenta-nvim/magenta/pkg/capabilities/httpfetch"
	"github.com/magenta-nvim/magenta/pkg/capabilities/searxng"
	"github.com/magenta-nvim/magenta/pkg/config"
)

// WebSearcher builds the web_search back end the options configure (a
// SearXNG instance, search.searxng.url) behind its guard: a back end on
// a loopback or private address asks through broker, ALWAYS answers kept
// in remembered like the other guards'. nil when none is configured, so
// the tool is not offered. The search runs where the host runs, for
// local and Docker threads alike, over the same pinned HTTP client as
// web_fetch.
func WebSearcher(opts config.Options, broker *approval.Broker, remembered *guard.Remembered, warn func(string)) capabilities.WebSearcher {
	url := opts.Search.SearXNGURL()
	if url == "" {
		return nil
	}
	s, err := searxng.New(searxng.Options{URL: url, Fetcher: httpfetch.New(httpfetch.Options{})})
	if err != nil {
		// config.Decode checked the URL already; say so anyway rather
		// than drop the back end silently.
		if warn != nil {
			warn("magenta options: search.searxng: " + err.Error())
		}
		return nil
	}
	return guard.NewWebSearcher(s, broker, remembered, httpfetch.IsPrivate)
}
