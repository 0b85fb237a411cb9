package prompts

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		name   string
		in     string
		fields map[string]any
		body   string
		has    bool
		err    error
	}{
		{name: "no front matter", in: "Just text.\n", body: "Just text."},
		{name: "yaml", in: "---\nname: a\ndescription: \"quoted: yes\"\ntools: [x, y]\n---\n\nBody\n", has: true,
			fields: map[string]any{"name": "a", "description": "quoted: yes", "tools": []any{"x", "y"}}, body: "Body"},
		{name: "crlf and bom", in: "\xef\xbb\xbf---\r\nname: a\r\n---\r\nline one\r\nline two\r\n", has: true,
			fields: map[string]any{"name": "a"}, body: "line one\nline two"},
		{name: "empty front matter", in: "---\n---\nbody", has: true, fields: map[string]any{}, body: "body"},
		{name: "closed by dots", in: "---\na: 1\n...\nbody", has: true, fields: map[string]any{"a": 1}, body: "body"},
		{name: "nothing after the close", in: "---\na: b\n---", has: true, fields: map[string]any{"a": "b"}},
		{name: "a rule is not front matter", in: "----\ntext", body: "----\ntext"},
		// Claude Code's argument-hint: [a] [b] is not YAML; read as plain lines.
		{name: "plain lines", in: "---\nargument-hint: [pr-number] [priority]\ndescription: Review: a PR\ntools:\n  - Read\n  - Grep\n---\nbody", has: true,
			fields: map[string]any{"argument-hint": "[pr-number] [priority]", "description": "Review: a PR", "tools": []any{"Read", "Grep"}}, body: "body"},
		{name: "unclosed", in: "---\nname: a\nbody", err: ErrUnclosed},
		{name: "only the opening", in: "---", err: ErrUnclosed},
		{name: "not a mapping", in: "---\n- a\n- b\n---\n", err: ErrFrontMatter},
		{name: "broken yaml", in: "---\nname: [a\n  b: {\n---\n", err: ErrFrontMatter},
		{name: "not utf-8", in: "---\nname: \xff\n---\n", err: ErrNotUTF8},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc, err := Parse([]byte(c.in))
			if c.err != nil {
				require.Error(t, err)
				assert.True(t, errors.Is(err, c.err), "%v", err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.has, doc.HasFrontMatter)
			assert.Equal(t, c.fields, doc.Fields)
			assert.Equal(t, c.body, doc.Body)
		})
	}
}

func TestFields(t *testing.T) {
	doc, err := Parse([]byte("---\nn: 3\nb: true\nl: [a, b]\nm: {k: v}\nc: \" a , b,,c \"\nbad: [a, [b]]\n---\n"))
	require.NoError(t, err)
	s, err := doc.String("n")
	assert.NoError(t, err)
	assert.Equal(t, "3", s)
	s, _ = doc.String("b")
	assert.Equal(t, "true", s)
	_, err = doc.String("l")
	assert.EqualError(t, err, "l must be text, not a list")
	_, err = doc.String("m")
	assert.EqualError(t, err, "m must be text, not a mapping")
	list, err := doc.List("c")
	assert.NoError(t, err)
	assert.Equal(t, []string{"a", "b", "c"}, list, "a comma list")
	list, _ = doc.List("l")
	assert.Equal(t, []string{"a", "b"}, list, "a YAML list")
	_, err = doc.List("bad")
	assert.EqualError(t, err, "bad[2] must be a name, not a list")
	list, err = doc.List("absent")
	assert.NoError(t, err)
	assert.Nil(t, list)
}

// FuzzParse: any bytes give a document or an error, never a panic, and
// the parsers of the three kinds hold to their promises.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"---\nname: a\ndescription: b\n---\nbody",
		"---\nargument-hint: [a] [b]\n---\n$ARGUMENTS $1",
		"---\n&a [*a, *a]\n---\n",
		"---\na: &x {b: *x}\n---\n",
		"---\r\n---\r\n",
		"---\n- x\n---",
		"no front matter",
		"---\ntools:\n  - a\n  - b\n---",
		"\xef\xbb\xbf---\nname: é\n---",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := Parse(data)
		if err != nil {
			return
		}
		if doc.HasFrontMatter && doc.Fields == nil {
			t.Fatalf("front matter without fields: %q", data)
		}
		if s, _, err := parseSkill(data, "dir"); err == nil {
			if !skillName().MatchString(s.Name) || s.Description == "" {
				t.Fatalf("skill %+v accepted from %q", s, data)
			}
		}
		if a, _, err := parseAgent(data); err == nil && (a.Name == "" || a.Description == "") {
			t.Fatalf("agent %+v accepted from %q", a, data)
		}
		if c, _, err := parseCommand(data, "cmd"); err == nil {
			c.Expand("a 'b c' d")
		}
	})
}
