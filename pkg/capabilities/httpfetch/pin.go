package httpfetch

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// pins holds, for one fetch, the addresses each host was resolved to and
// approved with. The transport dials only these addresses.
type pins struct {
	resolve func(ctx context.Context, host string) ([]netip.Addr, error)
	check   func(ctx context.Context, host string, addrs []netip.Addr) error
	// checkCtx is the caller's context, given to check: the fetch timeout
	// does not cut a check short, and the budget is paused meanwhile.
	checkCtx context.Context
	budget   *budget

	mu    sync.Mutex
	addrs map[string][]netip.Addr
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

// approve resolves host once per fetch, runs the check on the result and
// pins it. A host already pinned in this fetch is not resolved again.
func (p *pins) approve(ctx context.Context, host string) error {
	key := hostKey(host)
	p.mu.Lock()
	_, done := p.addrs[key]
	p.mu.Unlock()
	if done {
		return nil
	}
	addrs, err := p.lookup(ctx, key)
	if err != nil {
		return err
	}
	if p.check != nil {
		p.budget.pause()
		err := p.check(p.checkCtx, key, slices.Clone(addrs))
		p.budget.resume()
		if err != nil {
			return &checkError{host: key, err: err}
		}
	}
	p.mu.Lock()
	p.addrs[key] = addrs
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

// dial connects to the pinned addresses of addr's host, in order, and
// never consults DNS.
func (p *pins) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", addr, err)
	}
	key := hostKey(host)
	p.mu.Lock()
	addrs, ok := p.addrs[key]
	p.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("connect to %s: host was not checked before connecting", host)
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

// checkError is a host rejected by CheckHost; it unwraps to the
// caller's error.
type checkError struct {
	host string
	err  error
}

func (e *checkError) Error() string { return "host " + e.host + " rejected: " + e.err.Error() }
func (e *checkError) Unwrap() error { return e.err }

var errTooManyRedirects = errors.New("too many redirects")
