package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type titleRecorder struct{ titles []string }

func (r *titleRecorder) SetTitle(t string) { r.titles = append(r.titles, t) }

func TestThreadTitle(t *testing.T) {
	reg := Default()
	tests := []struct {
		name, input string
		wantErr     string
		wantTitle   string
	}{
		{"sets the title", `{"title":"Fix the parser"}`, "", "Fix the parser"},
		{"folds white space and controls", "{\"title\":\"  a\\n\\tb\\u0007c  \"}", "", "a b c"},
		{"caps the length", `{"title":"` + strings.Repeat("x", 200) + `"}`, "", strings.Repeat("x", ThreadTitleMaxRunes-1) + "…"},
		{"empty", `{"title":"   "}`, "title must not be empty", ""},
		{"missing field", `{}`, "invalid input for thread_title", ""},
		{"wrong type", `{"title":3}`, "invalid input for thread_title", ""},
		{"unknown field", `{"title":"a","x":1}`, "invalid input for thread_title", ""},
		{"not JSON", `{"title":`, "not valid JSON", ""},
		{"adapter-wrapped bad arguments", `{"_invalid_arguments":"title=x"}`, "your input was not valid JSON (a JSON object was expected); it was: title=x", ""},
		{"a long bad input is quoted in part", `{"_invalid_arguments":"` + strings.Repeat("y", 500) + `"}`, "it was: " + strings.Repeat("y", InvalidInputExcerpt) + "…", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &titleRecorder{}
			res := reg.Run(context.Background(), "thread_title", Call{Input: json.RawMessage(tt.input), Thread: rec})
			if tt.wantErr != "" {
				assert.True(t, res.IsError)
				assert.Contains(t, res.Text, tt.wantErr)
				assert.Empty(t, rec.titles)
				return
			}
			require.False(t, res.IsError, res.Text)
			assert.Equal(t, []string{tt.wantTitle}, rec.titles)
		})
	}
}

func TestRegistry(t *testing.T) {
	reg := Default()
	t.Run("unknown tool", func(t *testing.T) {
		res := reg.Run(context.Background(), "nope", Call{})
		assert.True(t, res.IsError)
		assert.Contains(t, res.Text, `unknown tool "nope"`)
		assert.Contains(t, res.Text, "thread_title")
	})
	t.Run("a panicking tool becomes an error result", func(t *testing.T) {
		boom := MustTyped("boom", "explodes", nil, func(context.Context, Call, struct{}) Result { panic("kaboom") })
		r, err := NewRegistry(boom)
		require.NoError(t, err)
		res := r.Run(context.Background(), "boom", Call{})
		assert.True(t, res.IsError)
		assert.Contains(t, res.Text, "kaboom")
	})
	t.Run("duplicates are refused", func(t *testing.T) {
		_, err := NewRegistry(ThreadTitle(), ThreadTitle())
		assert.Error(t, err)
	})
	t.Run("specs carry the schema and the rendered description", func(t *testing.T) {
		specs := reg.Specs()
		names := make([]string, len(specs))
		for i, s := range specs {
			names[i] = s.Name
		}
		require.Contains(t, names, "thread_title")
		title, _ := reg.Tool("thread_title")
		assert.Contains(t, title.Spec().Description, "at most 80 characters")
		var schema map[string]any
		require.NoError(t, json.Unmarshal(title.Spec().InputSchema, &schema))
		assert.Equal(t, "object", schema["type"])
		assert.Equal(t, []any{"title"}, schema["required"])
	})
}
