package guard

import (
	"context"
	"fmt"
	"net/netip"
	"net/url"
	"strings"

	"github.com/magenta-nvim/magenta/pkg/approval"
	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// KindWebSearch is the approval kind of web searches, keyed like web
// fetches by origin (capabilities.Origin).
const KindWebSearch = "web-search"

// WebSearcher is a capabilities.WebSearcher that asks before the search
// back end is contacted on a loopback, private or link-local address (a
// self-hosted SearXNG usually is one: the question names the engine's
// URL with the query, so the user sees what the model sends where), and
// before a redirect takes the search to an origin other than the
// configured one. Unlike a fetch's, these questions offer ALWAYS: the
// model does not choose the back end, the user's options do, so one
// ALWAYS per session (remembered per origin) is enough. A public back
// end the user configured is contacted without asking.
type WebSearcher struct {
	inner capabilities.WebSearcher
	hostGate
}

var _ capabilities.WebSearcher = (*WebSearcher)(nil)

// NewWebSearcher guards inner; isPrivate classifies addresses
// (httpfetch.IsPrivate).
func NewWebSearcher(inner capabilities.WebSearcher, broker *approval.Broker, remembered *Remembered, isPrivate func(netip.Addr) bool) *WebSearcher {
	return &WebSearcher{inner: inner, hostGate: hostGate{broker: broker, remembered: remembered, isPrivate: isPrivate}}
}

// Search implements capabilities.WebSearcher.
func (s *WebSearcher) Search(ctx context.Context, req capabilities.WebSearchRequest) (*capabilities.WebSearchResponse, error) {
	req.CheckHost = gatedCheckHost(req.CheckHost, func(ctx context.Context, target *url.URL, addrs []netip.Addr, redirect bool) error {
		return s.check(ctx, req, target, addrs, redirect)
	})
	return s.inner.Search(ctx, req)
}

func (s *WebSearcher) check(ctx context.Context, req capabilities.WebSearchRequest, target *url.URL, addrs []netip.Addr, redirect bool) error {
	origin := capabilities.Origin(target)
	private := s.private(addrs)
	if (len(private) == 0 && !redirect) || s.remembered.Has(KindWebSearch, origin) {
		return nil
	}
	r := approval.Request{ThreadID: req.ThreadID, ToolUseID: req.RequestID, Kind: KindWebSearch, Subject: target.String()}
	switch {
	case len(private) > 0:
		r.Reason = fmt.Sprintf("the search engine %s resolves to %s: a loopback, private or link-local address", target.Hostname(), strings.Join(private, ", "))
	default:
		r.Reason = fmt.Sprintf("the search engine redirects to %s, not the configured origin", origin)
	}
	if redirect && len(private) > 0 {
		r.Reason += " (a redirect)"
	}
	d, err := askUser(ctx, s.broker, r, "the user declined")
	if err == nil && d == approval.AllowAlways {
		s.remembered.Remember(KindWebSearch, origin)
	}
	return err
}
