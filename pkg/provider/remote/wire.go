package remote

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/magenta-nvim/magenta/pkg/provider"
)

// Protocol is the version of the messages below. A change that an older
// peer would misread must bump it.
const Protocol = 2

// call is a message from the host: a stream to start (Spec and Request
// set) or one to cancel.
type call struct {
	ID      uint64            `json:"id"`
	Cancel  bool              `json:"cancel,omitempty"`
	Spec    *provider.Spec    `json:"spec,omitempty"`
	Request *provider.Request `json:"request,omitempty"`
}

// reply is a message from the provider process. ID 0 carries Hello.
type reply struct {
	ID       uint64             `json:"id"`
	Hello    *hello             `json:"hello,omitempty"`
	Event    *wireEvent         `json:"event,omitempty"`
	Response *provider.Response `json:"response,omitempty"`
	Error    *wireError         `json:"error,omitempty"`
}

type hello struct {
	Protocol int `json:"protocol"`
	PID      int `json:"pid"`
}

// wireEvent is a provider.Event. Retrying never crosses: the host's
// WithRetry emits it.
type wireEvent struct {
	Type  string `json:"type"`
	Index int    `json:"index"`
	Text  string `json:"text,omitempty"`
	ID    string `json:"toolUseId,omitempty"`
	Name  string `json:"name,omitempty"`
}

const (
	eventText      = "text"
	eventThinking  = "thinking"
	eventToolStart = "tool_use_start"
	eventToolDelta = "tool_use_delta"
)

func encodeEvent(e provider.Event) (*wireEvent, bool) {
	switch e := e.(type) {
	case provider.TextDelta:
		return &wireEvent{Type: eventText, Index: e.Index, Text: e.Text}, true
	case provider.ThinkingDelta:
		return &wireEvent{Type: eventThinking, Index: e.Index, Text: e.Text}, true
	case provider.ToolUseStart:
		return &wireEvent{Type: eventToolStart, Index: e.Index, ID: e.ID, Name: e.Name}, true
	case provider.ToolUseDelta:
		return &wireEvent{Type: eventToolDelta, Index: e.Index, Text: e.PartialJSON}, true
	}
	return nil, false
}

func (w *wireEvent) decode() (provider.Event, error) {
	switch w.Type {
	case eventText:
		return provider.TextDelta{Index: w.Index, Text: w.Text}, nil
	case eventThinking:
		return provider.ThinkingDelta{Index: w.Index, Text: w.Text}, nil
	case eventToolStart:
		return provider.ToolUseStart{Index: w.Index, ID: w.ID, Name: w.Name}, nil
	case eventToolDelta:
		return provider.ToolUseDelta{Index: w.Index, PartialJSON: w.Text}, nil
	}
	return nil, fmt.Errorf("unknown event type %q", w.Type)
}

// wireError carries what the host's callers look at in an error: the
// *provider.Error fields (Kind decides retries and the message the chat
// shows), whether the chain held an *IdleTimeoutError, and the text.
type wireError struct {
	Message string `json:"message"`
	// Classified: the error was a *provider.Error with these fields.
	Classified bool               `json:"classified,omitempty"`
	Kind       provider.ErrorKind `json:"kind,omitempty"`
	Status     int                `json:"status,omitempty"`
	Type       string             `json:"type,omitempty"`
	Detail     string             `json:"detail,omitempty"`
	Retryable  bool               `json:"retryable,omitempty"`
	RetryAfter time.Duration      `json:"retryAfter,omitempty"`
	// IdleAfter is set when the chain held an *IdleTimeoutError.
	IdleAfter time.Duration `json:"idleAfter,omitempty"`
}

func encodeError(err error) *wireError {
	w := &wireError{Message: err.Error()}
	var idle *provider.IdleTimeoutError
	if errors.As(err, &idle) {
		w.IdleAfter = idle.After
	}
	var pe *provider.Error
	if errors.As(err, &pe) {
		w.Classified = true
		w.Kind, w.Status, w.Type, w.Detail = pe.Kind, pe.Status, pe.Type, pe.Message
		w.Retryable, w.RetryAfter = pe.Retryable, pe.RetryAfter
		if pe.Err != nil {
			w.Message = pe.Err.Error()
		}
	}
	return w
}

// decode rebuilds an error the host's callers classify as they did the
// adapter's own: errors.As finds the same *provider.Error and
// *provider.IdleTimeoutError, and Error() reads the same.
func (w *wireError) decode() error {
	var cause error = errors.New(w.Message)
	if w.IdleAfter > 0 {
		cause = &idleCause{text: w.Message, idle: &provider.IdleTimeoutError{After: w.IdleAfter}}
	}
	if !w.Classified {
		return cause
	}
	return &provider.Error{Kind: w.Kind, Status: w.Status, Type: w.Type, Message: w.Detail,
		Retryable: w.Retryable, RetryAfter: w.RetryAfter, Err: cause}
}

// idleCause keeps the adapter's text of a stall and unwraps to the
// IdleTimeoutError in it.
type idleCause struct {
	text string
	idle *provider.IdleTimeoutError
}

func (e *idleCause) Error() string { return e.text }
func (e *idleCause) Unwrap() error { return e.idle }

// marshalCall encodes c, naming what could not be encoded (a tool input
// that is not JSON, say) instead of sending half a call.
func marshalCall(c call) ([]byte, error) {
	b, err := encodeLine(c)
	if err != nil {
		return nil, fmt.Errorf("could not encode the request for the provider process: %w", err)
	}
	return b, nil
}

// encodeLine is v as one line of JSON. HTML characters are not escaped:
// code is full of <, > and &, which json.Marshal would send as six bytes
// each and, inside a tool input (json.RawMessage), rewrite.
func encodeLine(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
