package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/htmlconv/childtest"
)

type fakeFetcher struct {
	got  capabilities.FetchRequest
	resp *capabilities.FetchResponse
	err  error
}

func (f *fakeFetcher) Fetch(_ context.Context, r capabilities.FetchRequest) (*capabilities.FetchResponse, error) {
	f.got = r
	return f.resp, f.err
}

type memArtifacts map[string][]byte

func (m memArtifacts) Save(thread, req, name string, data []byte) (string, error) {
	p := "/logs/" + thread + "/" + req + "/" + name
	m[p] = data
	return p, nil
}

func runFetch(f capabilities.Fetcher, arts memArtifacts, input string) Result {
	env := &capabilities.Environment{Cwd: "/ws", Fetcher: f, Artifacts: arts}
	return Default().Run(context.Background(), "web_fetch", Call{ID: "tu", ThreadID: "th", Input: json.RawMessage(input), Env: env})
}

const page = `<html><head><style>p{}</style><script>alert(1)</script></head><body><nav>menu</nav>
<h1>Title</h1><p>Some <b>bold</b> text.</p><table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table><footer>foot</footer></body></html>`

func TestWebFetchFormats(t *testing.T) {
	f := &fakeFetcher{resp: &capabilities.FetchResponse{URL: "https://ex.com/p", Status: 200, ContentType: "text/html; charset=utf-8", Body: []byte(page)}}
	res := runFetch(f, memArtifacts{}, `{"url":"https://ex.com/p"}`)
	require.False(t, res.IsError, res.Text)
	assert.Equal(t, capabilities.FetchDefaultTimeout, f.got.Timeout)
	assert.True(t, strings.HasPrefix(f.got.Accept, "text/markdown"))
	assert.Equal(t, "tu", f.got.RequestID)
	assert.Contains(t, res.Text, "# Title")
	assert.Contains(t, res.Text, "**bold**")
	assert.Contains(t, res.Text, "| a | b |")
	for _, gone := range []string{"alert", "menu", "foot", "p{}"} {
		assert.NotContains(t, res.Text, gone)
	}

	res = runFetch(f, memArtifacts{}, `{"url":"https://ex.com/p","format":"text","timeout":5}`)
	assert.Contains(t, res.Text, "Title")
	assert.NotContains(t, res.Text, "alert")
	assert.True(t, strings.HasPrefix(f.got.Accept, "text/plain"))

	res = runFetch(f, memArtifacts{}, `{"url":"https://ex.com/p","format":"html"}`)
	assert.Contains(t, res.Text, "<script>alert(1)</script>")
}

func TestWebFetchLongPageIsSaved(t *testing.T) {
	body := "<p>" + strings.Repeat("word ", 10000) + "</p>"
	f := &fakeFetcher{resp: &capabilities.FetchResponse{URL: "https://ex.com/long", Status: 200, ContentType: "text/html", Body: []byte(body), Truncated: true}}
	arts := memArtifacts{}
	res := runFetch(f, arts, `{"url":"https://ex.com/long"}`)
	assert.False(t, res.IsError)
	assert.Contains(t, res.Text, "full text: /logs/th/tu/webFetch.md")
	assert.Contains(t, res.Text, "only the first 5 MB were read")
	assert.Less(t, len([]rune(res.Text)), WebFetchCharBudget+500)
	assert.Greater(t, len(arts["/logs/th/tu/webFetch.md"]), 45000)
	assert.Equal(t, "/logs/th/tu/webFetch.md", res.LogPath)
}

func TestWebFetchErrors(t *testing.T) {
	ok := &capabilities.FetchResponse{URL: "https://ex.com/", Status: 200, ContentType: "text/plain", Body: []byte("hi")}
	tests := []struct {
		name, input string
		f           *fakeFetcher
		want        string
	}{
		{"scheme", `{"url":"file:///etc/passwd"}`, &fakeFetcher{resp: ok}, "url must be an http or https URL"},
		{"format", `{"url":"https://ex.com","format":"pdf"}`, &fakeFetcher{resp: ok}, "format must be markdown, text or html"},
		{"timeout", `{"url":"https://ex.com","timeout":500}`, &fakeFetcher{resp: ok}, "timeout must be between 1 and 120 seconds"},
		{"404", `{"url":"https://ex.com/x"}`, &fakeFetcher{resp: &capabilities.FetchResponse{URL: "https://ex.com/x", Status: 404}}, "HTTP 404 Not Found from https://ex.com/x"},
		{"binary", `{"url":"https://ex.com/i.png"}`, &fakeFetcher{resp: &capabilities.FetchResponse{URL: "https://ex.com/i.png", Status: 200, ContentType: "image/png"}}, "image/png, which web_fetch cannot show"},
		{"declined", `{"url":"https://ex.com"}`, &fakeFetcher{err: &capabilities.DeniedError{What: "ex.com", Reason: "the user declined"}}, "The fetch was not made: the user declined (ex.com)."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := runFetch(tt.f, memArtifacts{}, tt.input)
			assert.True(t, res.IsError)
			assert.Contains(t, res.Text, tt.want)
		})
	}
}

// A conversion that fails (here: no converter) is the tool's error, with
// the converter's message; other formats need no converter.
func TestWebFetchConversionFails(t *testing.T) {
	childtest.Missing(t)
	f := &fakeFetcher{resp: &capabilities.FetchResponse{URL: "https://ex.com/p", Status: 200, ContentType: "text/html", Body: []byte(page)}}
	for _, format := range []string{"markdown", "text"} {
		res := runFetch(f, memArtifacts{}, `{"url":"https://ex.com/p","format":"`+format+`"}`)
		assert.True(t, res.IsError, format)
		assert.Contains(t, res.Text, "magenta-provider is missing", format)
		assert.Contains(t, res.Text, "run `make`", format)
	}
	res := runFetch(f, memArtifacts{}, `{"url":"https://ex.com/p","format":"html"}`)
	assert.False(t, res.IsError, res.Text)
	assert.Contains(t, res.Text, "<h1>Title</h1>")
}
