package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/magenta-nvim/magenta/pkg/provider"
)

// transportError marks a failure of the HTTP exchange itself (dial, TLS,
// reset, a body cut short) so that classify can tell it apart from a
// stream that arrived intact but could not be understood.
type transportError struct {
	err    error
	inBody bool // reading the response body failed, after the headers
}

func (e *transportError) Error() string { return e.err.Error() }
func (e *transportError) Unwrap() error { return e.err }

// notEventStream is returned for a successful response that is not an
// event stream, such as an HTML page from a wrong base URL.
type notEventStream struct{ contentType string }

func (e *notEventStream) Error() string {
	return fmt.Sprintf("the server answered with content-type %q instead of an event stream", e.contentType)
}

// markTransportErrors is an SDK middleware that wraps the errors of the
// round trip and of reading the response body in transportError, and
// rejects a successful response that is not an event stream.
func markTransportErrors(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	res, err := next(req)
	if err != nil {
		return res, &transportError{err: err}
	}
	if res == nil || res.Body == nil {
		return res, nil
	}
	if ct := res.Header.Get("content-type"); res.StatusCode < 300 && ct != "" {
		if mt, _, _ := mime.ParseMediaType(ct); mt != "text/event-stream" {
			_ = res.Body.Close()
			return nil, &notEventStream{contentType: ct}
		}
	}
	res.Body = &markedBody{res.Body}
	return res, nil
}

type markedBody struct{ io.ReadCloser }

func (b *markedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		err = &transportError{err: err, inBody: true}
	}
	return n, err
}

// cancelled is the error for a stream ended by its context. It is not a
// *provider.Error, so it is never retried.
func cancelled(ctxErr error) error {
	return fmt.Errorf("anthropic: %w", ctxErr)
}

// classify turns an error from the SDK into a *provider.Error, or into a
// cancellation error when ctx has ended.
func classify(ctx context.Context, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return cancelled(ctxErr)
	}
	var aerr *sdk.Error
	if errors.As(err, &aerr) {
		if aerr.StatusCode >= 400 {
			return statusError(aerr)
		}
		return streamError(aerr)
	}
	var te *transportError
	if errors.As(err, &te) {
		msg := te.Error()
		if te.inBody {
			msg = "the stream ended early: " + msg
		}
		return &provider.Error{Kind: provider.ErrConnection, Message: msg, Retryable: true, Err: err}
	}
	if strings.HasPrefix(err.Error(), "received error while streaming") {
		// An error event whose payload the SDK could not decode.
		return &provider.Error{Kind: provider.ErrStreamFailed, Message: err.Error(), Err: err}
	}
	return &provider.Error{Kind: provider.ErrProtocol, Message: "could not read the response stream: " + err.Error(), Err: err}
}

// statusError classifies an HTTP error response.
func statusError(aerr *sdk.Error) *provider.Error {
	typ, msg := errorBody(aerr.RawJSON())
	kind, retry := provider.KindForStatus(aerr.StatusCode)
	if typ == "overloaded_error" {
		kind, retry = provider.ErrOverloaded, true
	}
	if promptTooLong(typ, msg) {
		kind, retry = provider.ErrContextTooLong, false
	}
	if msg == "" {
		msg = http.StatusText(aerr.StatusCode)
	}
	pe := &provider.Error{Kind: kind, Status: aerr.StatusCode, Type: typ, Message: msg, Retryable: retry, Err: aerr}
	if aerr.Response != nil {
		pe.RetryAfter = retryAfter(aerr.Response.Header, time.Now())
	}
	return pe
}

// streamError classifies an `event: error` received inside a 200 stream.
func streamError(aerr *sdk.Error) *provider.Error {
	typ, msg := errorBody(aerr.RawJSON())
	if msg == "" {
		msg = "the server reported an error inside the stream"
	}
	pe := &provider.Error{Kind: provider.ErrStreamFailed, Type: typ, Message: msg, Err: aerr}
	switch typ {
	case "overloaded_error":
		pe.Kind, pe.Retryable = provider.ErrOverloaded, true
	case "rate_limit_error":
		pe.Kind, pe.Retryable = provider.ErrRateLimit, true
	case "api_error":
		pe.Kind, pe.Retryable = provider.ErrServer, true
	}
	return pe
}

// promptTooLong recognises the answer to a prompt over the context
// window: invalid_request_error "prompt is too long: 210000 tokens >
// 200000 maximum".
func promptTooLong(typ, msg string) bool {
	return typ == "invalid_request_error" && strings.Contains(strings.ToLower(msg), "prompt is too long")
}

// errorBody reads error.type and error.message from an API error body.
// A body that is not such JSON yields its text, shortened, as the message.
func errorBody(raw string) (typ, msg string) {
	var body struct {
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(raw), &body); err == nil && (body.Error.Type != "" || body.Error.Message != "") {
		return body.Error.Type, body.Error.Message
	}
	msg = strings.TrimSpace(raw)
	if len(msg) > 300 {
		msg = msg[:300] + "…"
	}
	return "", msg
}

// retryAfter reads the delay the server asks for: retry-after-ms, or
// retry-after as seconds or an HTTP date. It returns 0 when there is none.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if v := strings.TrimSpace(h.Get("retry-after-ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return seconds(ms / 1000)
		}
	}
	v := strings.TrimSpace(h.Get("retry-after"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		return seconds(s)
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return min(t.Sub(now), maxRetryAfter)
	}
	return 0
}

// seconds converts a server-given delay, capped at a day so that absurd
// values cannot overflow.
func seconds(s float64) time.Duration {
	switch {
	case !(s > 0): // also NaN
		return 0
	case s > maxRetryAfter.Seconds():
		return maxRetryAfter
	}
	return time.Duration(s * float64(time.Second))
}

const maxRetryAfter = 24 * time.Hour
