package capabilities

import (
	"context"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"time"
)

// Fetch limits shared by implementations and the web_fetch tool.
const (
	FetchMaxBytes       = 5 << 20
	FetchDefaultTimeout = 30 * time.Second
	FetchMaxTimeout     = 120 * time.Second
	FetchMaxRedirects   = 10
)

// CheckHost is called before a fetch first contacts an origin (scheme,
// host and port: the first URL's, and each redirect target's when it
// differs from every origin checked so far in this fetch) with the URL
// about to be fetched (the caller must not change it) and the addresses
// its host resolved to; the fetch connects only to those addresses, and
// only on checked ports, so DNS cannot change them between the check and
// the connection. An error stops the fetch and is returned (wrapped) by
// Fetch.
type CheckHost func(ctx context.Context, target *url.URL, addrs []netip.Addr) error

// Origin is u's origin as approvals key it: lowercased scheme and host,
// and the port, the scheme's default when u has none
// ("http://127.0.0.1:8080", "https://example.com:443").
func Origin(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[scheme]
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// FetchRequest is one HTTP GET.
type FetchRequest struct {
	// ThreadID and RequestID identify the tool call (for approvals).
	ThreadID, RequestID string
	URL                 string // http or https only
	Accept              string // the Accept header
	// Timeout bounds the whole fetch; 0 means FetchDefaultTimeout.
	Timeout time.Duration
	// MaxBytes caps the body; 0 means FetchMaxBytes.
	MaxBytes int64
	// CheckHost, when set, approves each origin before it is contacted.
	CheckHost CheckHost
}

// FetchResponse is a fetched document. A non-2xx status is a response,
// not an error.
type FetchResponse struct {
	URL         string // after redirects
	Status      int
	ContentType string
	Body        []byte
	// Truncated says the body was cut at MaxBytes (by Content-Length or
	// by the bytes actually read).
	Truncated bool
	// Retried says a bot challenge was answered by retrying once with
	// another user agent.
	Retried bool
}

// Fetcher fetches URLs. Implementations are safe for concurrent use.
type Fetcher interface {
	Fetch(ctx context.Context, req FetchRequest) (*FetchResponse, error)
}
