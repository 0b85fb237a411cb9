package host

import (
	"maps"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/chat"
)

// payloadTypes is every payload struct of the two tables.
func payloadTypes() map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for name, spec := range events {
		out["event "+name] = spec.payload
	}
	for name, spec := range requests {
		out["request "+name] = spec.payload
	}
	return out
}

// sample is a value of the shape a field of type t arrives as from Lua.
func sample(t reflect.Type) any {
	switch t {
	case reflect.TypeFor[attachments]():
		return []any{map[string]any{"label": "l", "text": "t"}}
	case reflect.TypeFor[bufferTexts]():
		return []any{map[string]any{"path": "/w/a.txt", "text": "t"}}
	}
	switch t.Kind() {
	case reflect.String:
		return "s"
	case reflect.Int:
		return int64(7)
	case reflect.Bool:
		return true
	case reflect.Slice:
		return []any{"a"}
	case reflect.Interface:
		return map[string]any{"k": "v"}
	}
	return nil
}

// Every payload struct decodes: each field is tagged with its payload
// name, has a type the decoder knows, takes a value of its shape, and
// rejects one of another shape naming the field. An untagged field or
// a type decodePayload cannot fill fails here, not in the editor.
func TestPayloadStructsDecode(t *testing.T) {
	for what, typ := range payloadTypes() {
		require.Equal(t, reflect.Struct, typ.Kind(), what)
		full := map[string]any{}
		for i := range typ.NumField() {
			f := typ.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("payload"), ",")
			require.NotEmpty(t, name, "%s: field %s has no payload tag", what, f.Name)
			full[name] = sample(f.Type)
		}
		require.NoError(t, decodePayload(full, reflect.New(typ).Interface()), what)
		for i := range typ.NumField() {
			f := typ.Field(i)
			if f.Type.Kind() == reflect.Interface {
				continue // takes anything
			}
			name, _, _ := strings.Cut(f.Tag.Get("payload"), ",")
			wrong := maps.Clone(full)
			wrong[name] = struct{}{}
			err := decodePayload(wrong, reflect.New(typ).Interface())
			assert.ErrorContains(t, err, `field "`+name+`"`, "%s: a wrong type is an error naming the field", what)
		}
	}
}

func TestDecodePayload(t *testing.T) {
	type payload struct {
		ID    int      `payload:"id,required"`
		Text  string   `payload:"text"`
		On    bool     `payload:"on"`
		Paths []string `payload:"paths"`
		Raw   any      `payload:"raw"`
	}
	tests := []struct {
		name    string
		in      map[string]any
		want    payload
		wantErr string
	}{
		{"all fields", map[string]any{"id": int64(3), "text": "hi", "on": true, "paths": []any{"a", ""}, "raw": []any{1}},
			payload{ID: 3, Text: "hi", On: true, Paths: []string{"a", ""}, Raw: []any{1}}, ""},
		{"unknown fields are ignored", map[string]any{"id": uint64(1), "other": 1}, payload{ID: 1}, ""},
		{"bin is a string", map[string]any{"id": int64(1), "text": []byte{0xff}}, payload{ID: 1, Text: "\xff"}, ""},
		{"a Lua float is truncated", map[string]any{"id": 2.9}, payload{ID: 2}, ""},
		{"nil (vim.NIL) is absent", map[string]any{"id": int64(1), "text": nil}, payload{ID: 1}, ""},
		{"missing required", map[string]any{"text": "hi"}, payload{}, `field "id" is missing`},
		{"required nil", map[string]any{"id": nil}, payload{}, `field "id" is missing`},
		{"string for an int", map[string]any{"id": "3"}, payload{}, `field "id": want a number, got string`},
		{"number for a string", map[string]any{"id": int64(1), "text": int64(3)}, payload{}, `field "text": want a string, got int64`},
		{"string for a bool", map[string]any{"id": int64(1), "on": "yes"}, payload{}, `field "on": want a boolean`},
		{"table for a list", map[string]any{"id": int64(1), "paths": map[string]any{"a": 1}}, payload{}, `field "paths": want a list`},
		{"number in a list of strings", map[string]any{"id": int64(1), "paths": []any{"a", int64(1)}}, payload{}, `field "paths": item 2: want a string, got int64`},
		{"uint64 out of range", map[string]any{"id": uint64(1) << 63}, payload{}, "out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got payload
			err := decodePayload(tt.in, &got)
			if tt.wantErr != "" {
				assert.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// Attachments of the wrong shape are skipped, the message still goes;
// a field that is not a list at all is an error.
func TestAttachmentsDecode(t *testing.T) {
	var p sendEvent
	require.NoError(t, decodePayload(map[string]any{"text": "hi", "attachments": []any{
		"junk", map[string]any{"label": "a.go", "text": "package a"}, map[string]any{"label": "", "text": "x"},
		map[string]any{"label": "image: a.png", "text": "The user attached", "image": int64(3)},
	}}, &p))
	assert.Equal(t, attachments{
		{Attachment: chat.Attachment{Label: "a.go", Text: "package a"}},
		{Attachment: chat.Attachment{Label: "image: a.png", Text: "The user attached"}, imageID: 3},
	}, p.Attachments)
	assert.ErrorContains(t, decodePayload(map[string]any{"attachments": "x"}, &p), `field "attachments": want a list`)
}

// A request whose payload does not fit its struct is answered with an
// error naming the request and the field; an unknown one too.
func TestRequestPayloadErrors(t *testing.T) {
	h := New(nil, Options{Editor: &recordingEditor{got: make(chan struct{}, 1)}})
	defer h.Close()
	_, err := h.onRequest([]any{"git_diff", map[string]any{"staged": "yes"}})
	assert.EqualError(t, err, `request "git_diff": field "staged": want a boolean, got string`)
	_, err = h.onRequest([]any{"nope"})
	assert.ErrorContains(t, err, `unknown request "nope"`)
}

// An event whose payload does not fit is reported to the user, naming
// the event and the field, and not handled; an unknown event too.
func TestEventPayloadErrors(t *testing.T) {
	ed := &recordingEditor{got: make(chan struct{}, 4)}
	h := New(nil, Options{Editor: ed})
	defer h.Close()
	h.mu.Lock()
	h.app = (*chat.App)(nil) // handling the event would panic: it must not run
	h.mu.Unlock()
	h.onEvent([]any{"terminal_resize", map[string]any{"rows": int64(3)}})
	h.onEvent([]any{"nope"})
	for range 2 {
		select {
		case <-ed.got:
		case <-time.After(5 * time.Second):
			t.Fatal("no notification")
		}
	}
	ed.mu.Lock()
	defer ed.mu.Unlock()
	assert.ElementsMatch(t, []string{
		`magenta: event "terminal_resize": field "id" is missing`,
		`magenta: unknown event "nope"`,
	}, ed.notes)
}
