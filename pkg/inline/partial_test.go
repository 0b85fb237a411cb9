package inline

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPartialText(t *testing.T) {
	for _, c := range []struct {
		raw, want string
		ok        bool
	}{
		{``, "", false},
		{`{"te`, "", false},
		{`{"text"`, "", false},
		{`{"text": `, "", false},
		{`{"text": "`, "", true},
		{`{"text": "func a() {\n\tret`, "func a() {\n\tret", true},
		{`{"text": "a\`, "a", true},
		{`{"text": "a\\`, `a\`, true},
		{`{"text": "a\u00`, "a", true},
		{`{"text": "a\u00e9b`, "aéb", true},
		{`{"text": "say \"hi\"`, `say "hi"`, true},
		{`{"text": "done\n"}`, "done\n", true},
	} {
		got, ok := partialText(c.raw)
		assert.Equal(t, c.ok, ok, c.raw)
		assert.Equal(t, c.want, got, c.raw)
	}
}

// Every prefix of a complete input decodes to a prefix of its text.
func TestPartialTextPrefixes(t *testing.T) {
	text := "line \"one\"\n\tline\\two é \u2028 end"
	raw, err := json.Marshal(toolInput{Text: text})
	if err != nil {
		t.Fatal(err)
	}
	for i := range raw {
		got, _ := partialText(string(raw[:i]))
		assert.True(t, len(got) <= len(text) && text[:len(got)] == got, "prefix %q gave %q", raw[:i], got)
	}
	got, ok := partialText(string(raw))
	assert.True(t, ok)
	assert.Equal(t, text, got)
}
