package guard

import (
	"context"
	"net/netip"
	"net/url"
	"sync/atomic"

	"github.com/magenta-nvim/magenta/pkg/approval"
	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// hostGate is what the web decorators (Fetcher, WebSearcher) share: the
// broker that asks, the answers remembered per origin, and the
// classification of addresses a host resolved to.
type hostGate struct {
	broker     *approval.Broker
	remembered *Remembered
	isPrivate  func(netip.Addr) bool
}

// private returns the addresses among addrs that are loopback, private
// or link-local.
func (g hostGate) private(addrs []netip.Addr) []string {
	var out []string
	for _, a := range addrs {
		if g.isPrivate(a) {
			out = append(out, a.String())
		}
	}
	return out
}

// gatedCheckHost returns a CheckHost that runs check on every origin a
// request contacts (redirect is false for the first, true for each
// origin after it), then inner when set.
func gatedCheckHost(inner capabilities.CheckHost, check func(ctx context.Context, target *url.URL, addrs []netip.Addr, redirect bool) error) capabilities.CheckHost {
	var calls atomic.Int32
	return func(ctx context.Context, target *url.URL, addrs []netip.Addr) error {
		if err := check(ctx, target, addrs, calls.Add(1) > 1); err != nil {
			return err
		}
		if inner != nil {
			return inner(ctx, target, addrs)
		}
		return nil
	}
}
