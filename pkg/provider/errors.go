package provider

import (
	"errors"
	"fmt"
	"time"
)

// ErrorKind classifies a provider failure.
type ErrorKind string

const (
	ErrAuth         ErrorKind = "auth"          // 401, 403, missing key
	ErrRateLimit    ErrorKind = "rate_limit"    // 429
	ErrOverloaded   ErrorKind = "overloaded"    // 529, overloaded_error, 503
	ErrServer       ErrorKind = "server"        // other 5xx
	ErrInvalid      ErrorKind = "invalid"       // 400, 404, 413, 422: our request is wrong
	ErrConnection   ErrorKind = "connection"    // dial, TLS, reset, dropped mid-stream
	ErrProtocol     ErrorKind = "protocol"      // a stream the adapter could not understand
	ErrStreamFailed ErrorKind = "stream_failed" // an error event inside a 200 stream
	// ErrContextTooLong: the prompt does not fit the model's context
	// window (Anthropic's "prompt is too long", OpenAI's
	// context_length_exceeded). Sending it again cannot help; compacting
	// the conversation can.
	ErrContextTooLong ErrorKind = "context_too_long"
)

// Error is a classified provider failure.
type Error struct {
	Kind ErrorKind
	// Status is the HTTP status, 0 when there was none.
	Status int
	// Type is the provider's error type ("overloaded_error"), if any.
	Type    string
	Message string
	// Retryable says the same request may succeed later: rate limits,
	// overload, 5xx, and connection failures.
	Retryable bool
	// RetryAfter is the server's requested delay, 0 when it gave none.
	RetryAfter time.Duration
	Err        error
}

func (e *Error) Error() string {
	s := string(e.Kind)
	if e.Status != 0 {
		s = fmt.Sprintf("%s (HTTP %d)", s, e.Status)
	}
	if e.Type != "" {
		s += " " + e.Type
	}
	if e.Message != "" {
		s += ": " + e.Message
	} else if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// KindForStatus maps an HTTP status to an ErrorKind and whether it is
// worth retrying.
func KindForStatus(status int) (ErrorKind, bool) {
	switch {
	case status == 401 || status == 403:
		return ErrAuth, false
	case status == 429:
		return ErrRateLimit, true
	case status == 529 || status == 503:
		return ErrOverloaded, true
	case status >= 500:
		return ErrServer, true
	default:
		return ErrInvalid, false
	}
}

// MissingKeyError is returned when a profile's API key variable is unset.
type MissingKeyError struct {
	Profile string
	EnvVar  string
}

func (e *MissingKeyError) Error() string {
	return fmt.Sprintf("profile %q needs an API key: set the environment variable %s (or apiKeyEnvVar in the profile) and restart Neovim", e.Profile, e.EnvVar)
}

// IsRetryable reports whether err is a *Error marked retryable.
func IsRetryable(err error) bool {
	var pe *Error
	return asError(err, &pe) && pe.Retryable
}

// IsContextTooLong reports whether err says the prompt outgrew the
// model's context window.
func IsContextTooLong(err error) bool {
	var pe *Error
	return asError(err, &pe) && pe.Kind == ErrContextTooLong
}

func asError(err error, target **Error) bool { return errors.As(err, target) }
