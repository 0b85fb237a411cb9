package httpfetch

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

var loopback = netip.MustParseAddr("127.0.0.1")

// server starts a test server on 127.0.0.1 and returns it with its port.
func server(t *testing.T, h http.HandlerFunc) (*httptest.Server, string) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return srv, u.Port()
}

// fakeDNS answers every name with 127.0.0.1 and records the lookups.
type fakeDNS struct {
	mu      sync.Mutex
	lookups map[string]int
	answer  func(host string, n int) []netip.Addr // nil: always 127.0.0.1
}

func (d *fakeDNS) resolve(_ context.Context, host string) ([]netip.Addr, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.lookups == nil {
		d.lookups = map[string]int{}
	}
	d.lookups[host]++
	if d.answer != nil {
		return d.answer(host, d.lookups[host]), nil
	}
	return []netip.Addr{loopback}, nil
}

func (d *fakeDNS) count(host string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.lookups[host]
}

// checks records CheckHost calls: the host (lowercased), the URL and
// the addresses of each.
type checks struct {
	mu    sync.Mutex
	seen  []string
	urls  []string
	addrs map[string][]netip.Addr
	deny  map[string]error // by host
}

func (c *checks) check(_ context.Context, target *url.URL, addrs []netip.Addr) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.addrs == nil {
		c.addrs = map[string][]netip.Addr{}
	}
	host := strings.ToLower(target.Hostname())
	c.seen = append(c.seen, host)
	c.urls = append(c.urls, target.String())
	c.addrs[host] = addrs
	return c.deny[host]
}

func (c *checks) checkedURLs() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.urls...)
}

func (c *checks) hosts() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.seen...)
}

func newFetcher(dns *fakeDNS) *Fetcher {
	return New(Options{Resolver: dns.resolve})
}

func hostURL(host, port, path string) string {
	return fmt.Sprintf("http://%s:%s%s", host, port, path)
}

func fetch(t *testing.T, f *Fetcher, req capabilities.FetchRequest) (*capabilities.FetchResponse, error) {
	t.Helper()
	return f.Fetch(t.Context(), req)
}
