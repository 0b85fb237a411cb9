package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/openai/openai-go/v3/packages/ssestream"
)

// transportError marks a failure of the connection itself (dial, TLS,
// reset, truncated body), as opposed to content the SDK could not decode.
type transportError struct{ err error }

func (e *transportError) Error() string { return e.err.Error() }
func (e *transportError) Unwrap() error { return e.err }

// markTransportErrors is SDK middleware wrapping errors from the HTTP
// round trip and from reading the response body in *transportError.
func markTransportErrors(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	resp, err := next(req)
	if err != nil {
		return resp, &transportError{err}
	}
	if resp != nil && resp.Body != nil {
		resp.Body = &markedBody{resp.Body}
	}
	return resp, nil
}

type markedBody struct{ io.ReadCloser }

func (b *markedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		err = &transportError{err}
	}
	return n, err
}

// classify turns an error from the SDK stream into the error Stream
// returns. resp is the HTTP response, nil when there was none.
func classify(ctx context.Context, err error, resp *http.Response) error {
	if ctx.Err() != nil {
		return fmt.Errorf("openai: %w", ctx.Err())
	}
	if resp != nil && resp.StatusCode >= 400 {
		return statusError(resp, err)
	}
	var se *ssestream.StreamError
	if errors.As(err, &se) {
		return streamError(se.Event.Data, err)
	}
	var te *transportError
	if errors.As(err, &te) {
		return &provider.Error{Kind: provider.ErrConnection, Retryable: true, Err: te.err}
	}
	return &provider.Error{Kind: provider.ErrProtocol, Message: "could not decode the response stream: " + err.Error(), Err: err}
}

// statusError builds the error for an HTTP error status. The SDK leaves the
// body readable; its message is used even when the SDK could not parse it.
func statusError(resp *http.Response, err error) *provider.Error {
	kind, retryable := provider.KindForStatus(resp.StatusCode)
	pe := &provider.Error{
		Kind:       kind,
		Status:     resp.StatusCode,
		Retryable:  retryable,
		RetryAfter: retryAfter(resp.Header, time.Now()),
		Err:        err,
	}
	var body []byte
	if resp.Body != nil {
		body, _ = io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	}
	pe.Type, pe.Message = errorFields(body)
	if pe.Type == "overloaded_error" && kind == provider.ErrServer {
		pe.Kind = provider.ErrOverloaded
	}
	if contextTooLong(body, pe.Message) {
		pe.Kind, pe.Retryable = provider.ErrContextTooLong, false
	}
	return pe
}

// streamError builds the error for an {"error": ...} event in a 200 stream.
func streamError(data []byte, err error) *provider.Error {
	typ, msg := errorFields(data)
	hint := strings.ToLower(typ + " " + errorCode(data))
	return &provider.Error{
		Kind:    provider.ErrStreamFailed,
		Type:    typ,
		Message: msg,
		Retryable: strings.Contains(hint, "rate_limit") || strings.Contains(hint, "rate limit") ||
			strings.Contains(hint, "overloaded"),
		Err: err,
	}
}

// contextTooLong recognises the answer to a prompt over the context
// window: OpenAI's error code context_length_exceeded, or the wording
// OpenAI-compatible servers use (vLLM, llama.cpp: "maximum context
// length", "exceeds the available context size").
func contextTooLong(body []byte, msg string) bool {
	if strings.Contains(errorCode(body), "context_length_exceeded") {
		return true
	}
	m := strings.ToLower(msg)
	return strings.Contains(m, "maximum context length") || strings.Contains(m, "exceeds the available context size") || strings.Contains(m, "context_length_exceeded")
}

// errorCode returns the raw JSON of an error body's error.code (a string
// or a number, depending on the server), "" when there is none.
func errorCode(body []byte) string {
	var e struct {
		Error struct {
			Code json.RawMessage `json:"code"`
		} `json:"error"`
	}
	_ = json.Unmarshal(body, &e)
	return string(e.Error.Code)
}

// errorFields extracts the type and message from the error bodies that
// OpenAI-compatible servers send: {"error": {"message", "type"}},
// {"error": "text"}, {"message": ...}, {"detail": ...} or plain text.
func errorFields(body []byte) (typ, msg string) {
	var root struct {
		Error   json.RawMessage `json:"error"`
		Type    string          `json:"type"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(body, &root) != nil {
		return "", truncate(strings.TrimSpace(string(body)))
	}
	var obj struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	}
	var text string
	switch {
	case json.Unmarshal(root.Error, &text) == nil && text != "":
		return "", text
	case json.Unmarshal(root.Error, &obj) == nil && (obj.Message != "" || obj.Type != ""):
		return obj.Type, obj.Message
	case root.Message != "":
		return root.Type, root.Message
	case len(root.Detail) > 0:
		if json.Unmarshal(root.Detail, &text) == nil {
			return "", truncate(text)
		}
		return "", truncate(string(root.Detail))
	}
	return "", truncate(strings.TrimSpace(string(body)))
}

func truncate(s string) string {
	const limit = 500
	if len(s) > limit {
		return s[:limit] + "…"
	}
	return s
}

// retryAfter reads Retry-After-Ms, then Retry-After (seconds or an HTTP
// date). It returns 0 when neither gives a positive delay.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s > 0 {
			return time.Duration(s * float64(time.Second))
		}
		return 0
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
