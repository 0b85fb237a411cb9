package httpfetch

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// pins holds, for one fetch, the addresses each host was resolved to,
// the origins (scheme, host, port) CheckHost approved, and the host:port
// pairs those open. The transport dials only approved host:port pairs,
// and only on the addresses their host was checked with.
type pins struct {
	resolve func(ctx context.Context, host string) ([]netip.Addr, error)
	check   capabilities.CheckHost
	// checkCtx is the caller's context, given to check: the fetch timeout
	// does not cut a check short, and the budget is paused meanwhile.
	checkCtx context.Context
	budget   *budget

	mu      sync.Mutex
	addrs   map[string][]netip.Addr // by hostKey
	origins map[string]bool         // capabilities.Origin
	ports   map[string]bool         // net.JoinHostPort(hostKey, port)
}

func newPins(resolve func(ctx context.Context, host string) ([]netip.Addr, error), check capabilities.CheckHost, checkCtx context.Context, b *budget) *pins {
	return &pins{resolve: resolve, check: check, checkCtx: checkCtx, budget: b,
		addrs: map[string][]netip.Addr{}, origins: map[string]bool{}, ports: map[string]bool{}}
}

// hostKey lowercases a host name so the name checked and the name
// dialed are the same key. Non-ASCII names are refused earlier (see
// checkURL): net/http would dial their IDNA form, which this package
// cannot compute without another module.
func hostKey(host string) string { return strings.ToLower(host) }

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// approve checks u's origin once per fetch: its host is resolved once
// per fetch (the same addresses for every port), the check runs on the
// result, and the origin's host:port is pinned to it. An origin already
// approved in this fetch is not checked again; another port or scheme of
// a host is another origin.
func (p *pins) approve(ctx context.Context, u *url.URL) error {
	origin := capabilities.Origin(u)
	key := hostKey(u.Hostname())
	p.mu.Lock()
	done := p.origins[origin]
	addrs, resolved := p.addrs[key]
	p.mu.Unlock()
	if done {
		return nil
	}
	if !resolved {
		var err error
		if addrs, err = p.lookup(ctx, key); err != nil {
			return err
		}
	}
	if p.check != nil {
		target := *u // the check may keep it; the client goes on with u
		p.budget.pause()
		err := p.check(p.checkCtx, &target, slices.Clone(addrs))
		p.budget.resume()
		if err != nil {
			return &checkError{origin: origin, err: err}
		}
	}
	_, hostPort, _ := strings.Cut(origin, "://")
	_, port, _ := net.SplitHostPort(hostPort)
	p.mu.Lock()
	p.addrs[key] = addrs
	p.origins[origin] = true
	p.ports[net.JoinHostPort(key, port)] = true
	p.mu.Unlock()
	return nil
}

func (p *pins) lookup(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{a.Unmap()}, nil
	}
	raw, err := p.resolve(ctx, host)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", host, err)
	}
	addrs := make([]netip.Addr, 0, len(raw))
	for _, a := range raw {
		if a.IsValid() {
			addrs = append(addrs, a.Unmap())
		}
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("resolve %s: no addresses", host)
	}
	return addrs, nil
}

// dial connects to the pinned addresses of addr's host, in order, on a
// port an approved origin opened, and never consults DNS.
func (p *pins) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", addr, err)
	}
	key := hostKey(host)
	p.mu.Lock()
	addrs, ok := p.addrs[key]
	open := p.ports[net.JoinHostPort(key, port)]
	p.mu.Unlock()
	if !ok || !open {
		return nil, fmt.Errorf("connect to %s: host and port were not checked before connecting", net.JoinHostPort(host, port))
	}
	var d net.Dialer
	var first error
	for _, a := range addrs {
		conn, err := d.DialContext(ctx, network, net.JoinHostPort(a.String(), port))
		if err == nil {
			return conn, nil
		}
		if first == nil {
			first = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, fmt.Errorf("connect to %s: %w", host, first)
}

// transport is a fresh transport for one fetch: no proxy (a proxy would
// bypass pinning), dialing only pinned addresses, HTTP/2 over TLS kept.
func (p *pins) transport(tlsConfig *tls.Config) *http.Transport {
	return &http.Transport{
		TLSClientConfig:        tlsConfig,
		Proxy:                  nil,
		DialContext:            p.dial,
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    10 * time.Second,
		ExpectContinueTimeout:  time.Second,
		MaxResponseHeaderBytes: 1 << 20,
	}
}

// checkError is an origin rejected by CheckHost; it unwraps to the
// caller's error.
type checkError struct {
	origin string
	err    error
}

func (e *checkError) Error() string { return e.origin + " rejected: " + e.err.Error() }
func (e *checkError) Unwrap() error { return e.err }

var errTooManyRedirects = errors.New("too many redirects")
