package capabilities

import (
	"context"
	"net/netip"
	"time"
)

// Fetch limits shared by implementations and the web_fetch tool.
const (
	FetchMaxBytes       = 5 << 20
	FetchDefaultTimeout = 30 * time.Second
	FetchMaxTimeout     = 120 * time.Second
	FetchMaxRedirects   = 10
)

// CheckHost is called before connecting to a host (the first one and
// each redirect target) with the addresses it resolved to; the fetch
// connects only to those addresses, so DNS cannot change them between
// the check and the connection. An error stops the fetch and is returned
// (wrapped) by Fetch.
type CheckHost func(ctx context.Context, host string, addrs []netip.Addr) error

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
	// CheckHost, when set, approves each host before it is contacted.
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
