package searxng

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

func TestPlain(t *testing.T) {
	for in, want := range map[string]string{
		"  a\n\n b  ":             "a b",
		"<b>x</b> &lt;y&gt;":      "x <y>",
		"1 < 2 and 3":             "1 < 2 and 3",
		"bad \xff utf8":           "bad \uFFFD utf8",
		"\u2028line\u2029sep\x00": "line sep",
	} {
		assert.Equal(t, want, plain(in, 100), "%q", in)
	}
	assert.Equal(t, "abcd…", plain("abcdefgh", 5))
	assert.Equal(t, "abcde", plain("abcde", 5), "exactly the limit is not cut")
}

func TestParseCapsResults(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"results":[`)
	for i := range 30 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"url":"https://e.com/` + strings.Repeat("x", i) + `","title":"` + strings.Repeat("t", 1000) + `"}`)
	}
	b.WriteString(`]}`)
	res, _, err := Parse([]byte(b.String()), 99)
	assert.NoError(t, err)
	assert.Len(t, res, capabilities.WebSearchMaxResults)
	assert.Equal(t, capabilities.WebSearchMaxTitle, utf8.RuneCountInString(res[0].Title))
	res, _, _ = Parse([]byte(b.String()), 0)
	assert.Len(t, res, 1, "at least one")
}

// FuzzParse: whatever the back end answers, Parse does not panic, and
// what it returns is bounded plain text with http(s) URLs.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"results":[{"url":"https://a.b/c","title":"<b>T</b>","content":"s &amp; t"}],"unresponsive_engines":[["g","timeout"]]}`,
		`{"results":null}`, `{"results":[1,"x",null,{}]}`, `[]`, `{"results":[{"url":"http://x","title":"\u0000\u2028"}]}`,
		"<html>", "", `{"unresponsive_engines":[[1],[],"x"],"results":[]}`,
	} {
		f.Add([]byte(s), 5)
	}
	f.Fuzz(func(t *testing.T, body []byte, n int) {
		res, unresp, err := Parse(body, n)
		if err != nil {
			if res != nil || unresp != nil {
				t.Fatal("results with an error")
			}
			if strings.ContainsAny(err.Error(), "\n\r") {
				t.Fatalf("error on two lines: %q", err)
			}
			return
		}
		if len(res) > capabilities.WebSearchMaxResults || len(res) > max(1, n) || len(unresp) > 10 {
			t.Fatalf("too many: %d results, %d engines", len(res), len(unresp))
		}
		for _, r := range res {
			check(t, r.Title, capabilities.WebSearchMaxTitle)
			check(t, r.Snippet, capabilities.WebSearchMaxSnippet)
			if r.Title == "" || !(strings.HasPrefix(r.URL, "http://") || strings.HasPrefix(r.URL, "https://")) || len(r.URL) > capabilities.WebSearchMaxURL {
				t.Fatalf("bad result %+v", r)
			}
			if strings.IndexFunc(r.URL, func(c rune) bool { return unicode.IsSpace(c) || unicode.IsControl(c) }) >= 0 {
				t.Fatalf("URL with space or control: %q", r.URL)
			}
		}
		for _, e := range unresp {
			check(t, e, 60)
		}
	})
}

func check(t *testing.T, s string, limit int) {
	if !utf8.ValidString(s) || utf8.RuneCountInString(s) > limit {
		t.Fatalf("not bounded valid text: %q", s)
	}
	if strings.IndexFunc(s, func(c rune) bool { return c != ' ' && (unicode.IsSpace(c) || unicode.IsControl(c)) }) >= 0 {
		t.Fatalf("control or line break in %q", s)
	}
}
