package host

import (
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/chat"
	"github.com/magenta-nvim/magenta/pkg/chat/view"
)

type recordingEditor struct {
	mu    sync.Mutex
	notes []string
	got   chan struct{}
}

func (e *recordingEditor) ApplyEdit(int, view.Edit, int) error { return nil }

func (e *recordingEditor) CheckDisplay(int) error { return nil }

func (e *recordingEditor) NotifyIfHidden(int, string) error { return nil }

func (e *recordingEditor) OpenFile(string, int) error { return nil }

func (e *recordingEditor) RestoreInput(string) error { return nil }

func (e *recordingEditor) Notify(msg string, _ chat.Level) error {
	e.mu.Lock()
	e.notes = append(e.notes, msg)
	e.mu.Unlock()
	select {
	case e.got <- struct{}{}:
	default:
	}
	return nil
}

// A panic inside an event handler is recovered and reported to the user;
// the host keeps serving.
func TestHandlerPanicIsRecoveredAndReported(t *testing.T) {
	ed := &recordingEditor{got: make(chan struct{}, 1)}
	h := New(nil, Options{Editor: ed, LogPath: "/tmp/x.log"})
	defer h.Close()
	h.mu.Lock()
	h.app = (*chat.App)(nil) // a nil app makes dispatch panic
	h.mu.Unlock()
	require.NotPanics(t, func() { h.dispatchSafely(event{name: "send", payload: map[string]any{"text": "hi"}}) })
	select {
	case <-ed.got:
	case <-time.After(5 * time.Second):
		t.Fatal("no notification")
	}
	ed.mu.Lock()
	defer ed.mu.Unlock()
	require.Len(t, ed.notes, 1)
	assert.True(t, strings.HasPrefix(ed.notes[0], "magenta: internal error in event"), ed.notes[0])
	res, err := h.onRequest([]any{"ping"})
	require.NoError(t, err)
	assert.Equal(t, "pong", res)
}

func TestDecodeEvent(t *testing.T) {
	tests := []struct {
		name    string
		args    []any
		wantErr string
	}{
		{"no args", nil, "without a name"},
		{"name not a string", []any{42}, "must be a string"},
		{"empty name", []any{""}, "must be a string"},
		{"payload not a table", []any{"send", "text"}, "payload must be a table"},
		{"payload a non-empty list", []any{"send", []any{1}}, "named fields"},
		{"empty list payload is an empty table", []any{"abort", []any{}}, ""},
		{"ok", []any{"send", map[string]any{"text": "hi"}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := decodeEvent(tt.args)
			if tt.wantErr == "" {
				assert.NoError(t, err)
			} else {
				assert.ErrorContains(t, err, tt.wantErr)
			}
		})
	}
}

func FuzzDecodeEvent(f *testing.F) {
	f.Add("send", "text", "hello", int64(3))
	f.Add("", "", "", int64(-1))
	f.Fuzz(func(t *testing.T, name, key, val string, n int64) {
		for _, args := range [][]any{
			{name}, {name, map[string]any{key: val}}, {name, map[string]any{key: n}},
			{name, []any{val}}, {n, val}, {name, nil},
		} {
			ev, err := decodeEvent(args)
			if err == nil {
				for _, typ := range payloadTypes() {
					_ = decodePayload(ev.payload, reflect.New(typ).Interface())
				}
			}
		}
	})
}
