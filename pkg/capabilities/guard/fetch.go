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

// KindWeb is the approval kind of web fetches. Approvals are keyed by
// origin (capabilities.Origin: scheme, host and port), so a YES for one
// port of a host says nothing about another.
const KindWeb = "web"

// Fetcher is a capabilities.Fetcher that asks before contacting an
// origin the user has not approved, and always asks for hosts that
// resolve to loopback, private or link-local addresses, whatever was
// approved before, so the model cannot quietly reach local services or a
// cloud metadata endpoint. The question shows the full URL about to be
// fetched, and says when it is a redirect's target.
type Fetcher struct {
	inner capabilities.Fetcher
	hostGate
}

var _ capabilities.Fetcher = (*Fetcher)(nil)

// NewFetcher guards inner; isPrivate classifies addresses.
func NewFetcher(inner capabilities.Fetcher, broker *approval.Broker, remembered *Remembered, isPrivate func(netip.Addr) bool) *Fetcher {
	return &Fetcher{inner: inner, hostGate: hostGate{broker: broker, remembered: remembered, isPrivate: isPrivate}}
}

// Fetch implements capabilities.Fetcher: every origin the fetch contacts
// (the first and each redirect to a new one) is checked on the addresses
// its host resolved to, which the inner fetcher then pins.
func (f *Fetcher) Fetch(ctx context.Context, req capabilities.FetchRequest) (*capabilities.FetchResponse, error) {
	req.CheckHost = gatedCheckHost(req.CheckHost, func(ctx context.Context, target *url.URL, addrs []netip.Addr, redirect bool) error {
		return f.check(ctx, req, target, addrs, redirect)
	})
	return f.inner.Fetch(ctx, req)
}

func (f *Fetcher) check(ctx context.Context, req capabilities.FetchRequest, target *url.URL, addrs []netip.Addr, redirect bool) error {
	origin := capabilities.Origin(target)
	host := target.Hostname()
	private := f.private(addrs)
	via := ""
	if redirect {
		via = fmt.Sprintf(" (a redirect: the model asked for %s)", req.URL)
	}
	r := approval.Request{ThreadID: req.ThreadID, ToolUseID: req.RequestID, Kind: KindWeb, Subject: target.String()}
	if len(private) > 0 {
		r.Reason = fmt.Sprintf("%s resolves to %s: a loopback, private or link-local address (local services, cloud metadata)%s", host, strings.Join(private, ", "), via)
		r.NoAlways = true
		_, err := askUser(ctx, f.broker, r, "the user declined")
		return err
	}
	if f.remembered.Has(KindWeb, origin) {
		return nil
	}
	r.Reason = fmt.Sprintf("fetches from %s, an origin not approved in this session%s", origin, via)
	d, err := askUser(ctx, f.broker, r, "the user declined")
	if err == nil && d == approval.AllowAlways {
		f.remembered.Remember(KindWeb, origin)
	}
	return err
}
