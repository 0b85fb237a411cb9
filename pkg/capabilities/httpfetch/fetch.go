package httpfetch

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// DefaultUserAgent is sent when Options.UserAgent is empty.
const DefaultUserAgent = "magenta/1 (+https://github.com/magenta-nvim/magenta)"

// browserUserAgent is sent once when a bot challenge answers the first
// request.
const browserUserAgent = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"

// Options configures a Fetcher.
type Options struct {
	// UserAgent is the User-Agent header; empty means DefaultUserAgent.
	UserAgent string
	// Resolver resolves host names; nil means
	// net.DefaultResolver.LookupNetIP(ctx, "ip", host).
	Resolver func(ctx context.Context, host string) ([]netip.Addr, error)
}

// Fetcher is a capabilities.Fetcher over net/http that pins every host
// to the addresses it was checked with. Safe for concurrent use.
type Fetcher struct {
	userAgent string
	resolve   func(ctx context.Context, host string) ([]netip.Addr, error)
	tlsConfig *tls.Config // tests only: trust a test server's certificate
}

var _ capabilities.Fetcher = (*Fetcher)(nil)

// New returns a Fetcher.
func New(opts Options) *Fetcher {
	f := &Fetcher{userAgent: opts.UserAgent, resolve: opts.Resolver}
	if f.userAgent == "" {
		f.userAgent = DefaultUserAgent
	}
	if f.resolve == nil {
		f.resolve = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	return f
}

// Fetch implements capabilities.Fetcher.
func (f *Fetcher) Fetch(ctx context.Context, req capabilities.FetchRequest) (*capabilities.FetchResponse, error) {
	u, err := checkURL(req.URL)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", req.URL, err)
	}
	timeout := req.Timeout
	if timeout <= 0 {
		timeout = capabilities.FetchDefaultTimeout
	}
	timeout = min(timeout, capabilities.FetchMaxTimeout)
	maxBytes := req.MaxBytes
	if maxBytes <= 0 {
		maxBytes = capabilities.FetchMaxBytes
	}

	parent := ctx
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	b := startBudget(timeout, cancel)
	defer b.stop()

	p := newPins(f.resolve, req.CheckHost, parent, b)
	tr := p.transport(f.tlsConfig)
	defer tr.CloseIdleConnections()
	redirects := 0
	client := &http.Client{
		Transport: tr,
		CheckRedirect: func(r *http.Request, _ []*http.Request) error {
			redirects++
			if redirects > capabilities.FetchMaxRedirects {
				return fmt.Errorf("%w (more than %d)", errTooManyRedirects, capabilities.FetchMaxRedirects)
			}
			if _, err := checkURL(r.URL.String()); err != nil {
				return fmt.Errorf("redirect: %w", err)
			}
			return p.approve(r.Context(), r.URL)
		},
	}
	fail := func(err error) error { return describe(parent, b, timeout, u.String(), err) }

	if err := p.approve(ctx, u); err != nil {
		return nil, fail(err)
	}
	resp, err := get(ctx, client, u, f.userAgent, req.Accept)
	if err != nil {
		return nil, fail(err)
	}
	retried := false
	if isChallenge(resp) {
		retried = true
		final := resp.Request.URL
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		_ = resp.Body.Close()
		resp, err = get(ctx, client, final, browserUserAgent, req.Accept)
		if err != nil {
			return nil, fail(err)
		}
	}
	defer func() { _ = resp.Body.Close() }()

	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBytes+1))
	if err != nil {
		return nil, fail(fmt.Errorf("read body: %w", err))
	}
	truncated := resp.ContentLength > maxBytes
	if int64(len(body)) > maxBytes {
		body, truncated = body[:maxBytes], true
	}
	return &capabilities.FetchResponse{
		URL:         resp.Request.URL.String(),
		Status:      resp.StatusCode,
		ContentType: resp.Header.Get("Content-Type"),
		Body:        body,
		Truncated:   truncated,
		Retried:     retried,
	}, nil
}

func checkURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, err
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	case "":
		return nil, errors.New("URL has no scheme: only http and https are supported")
	default:
		return nil, fmt.Errorf("unsupported scheme %q: only http and https are supported", u.Scheme)
	}
	if u.Hostname() == "" {
		return nil, fmt.Errorf("%s URL has no host", u.Scheme)
	}
	if !isASCII(u.Hostname()) {
		return nil, fmt.Errorf("host %q is not ASCII: give internationalized names in their xn-- (punycode) form", u.Hostname())
	}
	return u, nil
}

func get(ctx context.Context, client *http.Client, u *url.URL, userAgent, accept string) (*http.Response, error) {
	r, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	r.Header.Set("User-Agent", userAgent)
	if accept != "" {
		r.Header.Set("Accept", accept)
	}
	return client.Do(r)
}

// isChallenge reports a Cloudflare bot challenge.
func isChallenge(resp *http.Response) bool {
	return resp.StatusCode == http.StatusForbidden &&
		strings.EqualFold(strings.TrimSpace(resp.Header.Get("Cf-Mitigated")), "challenge")
}

// describe turns a transport error into a message that names the cause:
// the caller's cancellation, the fetch timeout, a rejected host, or the
// network error, without net/http's `Get "…":` wrapping.
func describe(parent context.Context, b *budget, timeout time.Duration, rawURL string, err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		rawURL, err = ue.URL, ue.Err
	}
	var ce *checkError
	switch {
	case errors.As(err, &ce):
		// A rejection is reported as such even if the context ended since.
	case parent.Err() != nil:
		return fmt.Errorf("fetch %s: %w", rawURL, context.Cause(parent))
	case b.expired.Load():
		return fmt.Errorf("fetch %s: timed out after %s: %w", rawURL, timeout, context.DeadlineExceeded)
	}
	return fmt.Errorf("fetch %s: %w", rawURL, err)
}
