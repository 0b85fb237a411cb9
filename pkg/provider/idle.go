package provider

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// DefaultIdleTimeout is how long a stream may go without a single byte
// before it is abandoned (a profile's idleTimeout overrides it).
const DefaultIdleTimeout = 60 * time.Second

// IdleTimeoutError is the failure of a request that received no bytes for
// After: no response headers, or a body that stalled.
type IdleTimeoutError struct{ After time.Duration }

func (e *IdleTimeoutError) Error() string {
	return fmt.Sprintf("the server sent nothing for %s (the stream stalled)", e.After)
}

// IsIdleTimeout reports whether err is, or wraps, an *IdleTimeoutError.
func IsIdleTimeout(err error) bool {
	var ie *IdleTimeoutError
	return errors.As(err, &ie)
}

// IdleTimeoutTransport wraps base (nil: http.DefaultTransport) so that a
// request fails with *IdleTimeoutError when no bytes arrive for d: while
// waiting for the headers, and then between two reads of the body. It
// watches bytes, not stream events, so a long stretch of events the
// adapters skip (thinking, pings) keeps the stream alive.
func IdleTimeoutTransport(base http.RoundTripper, d time.Duration) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &idleTransport{base: base, d: d}
}

type idleTransport struct {
	base http.RoundTripper
	d    time.Duration
}

func (t *idleTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancelCause(req.Context())
	idle := &IdleTimeoutError{After: t.d}
	timer := time.AfterFunc(t.d, func() { cancel(idle) })
	resp, err := t.base.RoundTrip(req.WithContext(ctx))
	if err != nil {
		timer.Stop()
		cancel(nil)
		if context.Cause(ctx) == idle {
			return nil, idle
		}
		return nil, err
	}
	timer.Reset(t.d) // the headers were bytes
	resp.Body = &idleBody{body: resp.Body, ctx: ctx, cancel: cancel, timer: timer, d: t.d, idle: idle}
	return resp, nil
}

// idleBody re-arms the timer on every read that returns bytes, and reports
// the timeout (rather than a bare "context canceled") when it fired.
type idleBody struct {
	body   io.ReadCloser
	ctx    context.Context
	cancel context.CancelCauseFunc
	timer  *time.Timer
	d      time.Duration
	idle   *IdleTimeoutError
	once   sync.Once
}

func (b *idleBody) Read(p []byte) (int, error) {
	n, err := b.body.Read(p)
	if n > 0 {
		b.timer.Reset(b.d)
	}
	if err != nil && err != io.EOF && context.Cause(b.ctx) == b.idle {
		err = b.idle
	}
	return n, err
}

func (b *idleBody) Close() error {
	b.once.Do(func() {
		b.timer.Stop()
		b.cancel(nil)
	})
	return b.body.Close()
}
