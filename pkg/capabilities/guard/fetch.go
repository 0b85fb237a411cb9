package guard

import (
	"context"
	"fmt"
	"net/netip"
	"strings"

	"github.com/magenta-nvim/magenta/pkg/approval"
	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// KindWeb is the approval kind of web fetches, by host.
const KindWeb = "web"

// Fetcher is a capabilities.Fetcher that asks before contacting a host
// the user has not approved, and always asks for hosts that resolve to
// loopback, private or link-local addresses, whatever was approved
// before, so the model cannot quietly reach local services or a cloud
// metadata endpoint.
type Fetcher struct {
	inner      capabilities.Fetcher
	broker     *approval.Broker
	remembered *Remembered
	isPrivate  func(netip.Addr) bool
}

var _ capabilities.Fetcher = (*Fetcher)(nil)

// NewFetcher guards inner; isPrivate classifies addresses.
func NewFetcher(inner capabilities.Fetcher, broker *approval.Broker, remembered *Remembered, isPrivate func(netip.Addr) bool) *Fetcher {
	return &Fetcher{inner: inner, broker: broker, remembered: remembered, isPrivate: isPrivate}
}

// Fetch implements capabilities.Fetcher: every host the fetch contacts
// (the first and each redirect) is checked on the addresses it resolved
// to, which the inner fetcher then pins.
func (f *Fetcher) Fetch(ctx context.Context, req capabilities.FetchRequest) (*capabilities.FetchResponse, error) {
	inner := req.CheckHost
	req.CheckHost = func(ctx context.Context, host string, addrs []netip.Addr) error {
		if err := f.check(ctx, req, host, addrs); err != nil {
			return err
		}
		if inner != nil {
			return inner(ctx, host, addrs)
		}
		return nil
	}
	return f.inner.Fetch(ctx, req)
}

func (f *Fetcher) check(ctx context.Context, req capabilities.FetchRequest, host string, addrs []netip.Addr) error {
	var private []string
	for _, a := range addrs {
		if f.isPrivate(a) {
			private = append(private, a.String())
		}
	}
	r := approval.Request{ThreadID: req.ThreadID, ToolUseID: req.RequestID, Kind: KindWeb, Subject: host}
	if len(private) > 0 {
		r.Reason = fmt.Sprintf("%s resolves to %s: a loopback, private or link-local address (local services, cloud metadata)", host, strings.Join(private, ", "))
		return ask(ctx, f.broker, f.remembered, r, false)
	}
	if f.remembered.Has(KindWeb, host) {
		return nil
	}
	r.Reason = fmt.Sprintf("fetches from %s, a host not approved in this session", host)
	return ask(ctx, f.broker, f.remembered, r, true)
}
