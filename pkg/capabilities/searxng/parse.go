package searxng

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// Parse reads a SearXNG JSON answer: at most limit results (1 at least),
// each as plain text within the capabilities.WebSearchMax* bounds, with
// an http(s) URL, duplicates of a URL dropped; and the names of the
// engines the instance reports unresponsive. A body that is not a JSON
// object with a "results" list is an error; a result that is not usable
// (no URL, a field of the wrong type) is skipped.
func Parse(body []byte, limit int) ([]capabilities.WebSearchResult, []string, error) {
	limit = max(1, min(capabilities.WebSearchMaxResults, limit))
	var doc struct {
		Results      *[]json.RawMessage `json:"results"`
		Unresponsive []json.RawMessage  `json:"unresponsive_engines"`
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, nil, fmt.Errorf("the answer is not JSON (%s): is the URL a SearXNG instance?", excerpt(trimmed))
	}
	if err := json.Unmarshal(trimmed, &doc); err != nil {
		return nil, nil, fmt.Errorf("the answer is not a SearXNG search result: %w", cleanErr(err))
	}
	if doc.Results == nil {
		return nil, nil, errors.New(`the answer has no "results" list: is the URL a SearXNG instance?`)
	}
	var out []capabilities.WebSearchResult
	seen := map[string]bool{}
	for _, raw := range *doc.Results {
		if len(out) == limit {
			break
		}
		var r struct {
			Title   string `json:"title"`
			URL     string `json:"url"`
			Content string `json:"content"`
		}
		if json.Unmarshal(raw, &r) != nil {
			continue
		}
		u, ok := cleanURL(r.URL)
		if !ok || seen[u] {
			continue
		}
		seen[u] = true
		title := plain(r.Title, capabilities.WebSearchMaxTitle)
		if title == "" {
			title = u
		}
		out = append(out, capabilities.WebSearchResult{Title: title, URL: u, Snippet: plain(r.Content, capabilities.WebSearchMaxSnippet)})
	}
	return out, unresponsive(doc.Unresponsive), nil
}

// unresponsive reads SearXNG's [[engine, reason], …] leniently: the
// engine names, plain, at most ten.
func unresponsive(raw []json.RawMessage) []string {
	var out []string
	for _, r := range raw {
		if len(out) == 10 {
			break
		}
		var pair []any
		if json.Unmarshal(r, &pair) != nil || len(pair) == 0 {
			continue
		}
		if name, ok := pair[0].(string); ok {
			if name = plain(name, 60); name != "" {
				out = append(out, name)
			}
		}
	}
	return out
}

// cleanURL keeps http and https URLs with a host, without control
// characters or spaces, no longer than WebSearchMaxURL.
func cleanURL(raw string) (string, bool) {
	raw = strings.TrimSpace(raw)
	if raw == "" || len(raw) > capabilities.WebSearchMaxURL || !utf8.ValidString(raw) {
		return "", false
	}
	for _, r := range raw {
		if unicode.IsSpace(r) || unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return "", false
		}
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", false
	}
	return raw, true
}

// plain turns an engine's text into one line of plain text: tags
// dropped, entities decoded, control characters and runs of white space
// made one space, cut to limit characters (the last one "…" when cut).
func plain(s string, limit int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if strings.ContainsRune(s, '<') {
		s = stripTags(s)
	}
	if strings.ContainsRune(s, '&') {
		s = html.UnescapeString(s)
	}
	out := make([]rune, 0, min(len(s), limit+1))
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || r == '\uFEFF' {
			space = len(out) > 0
			continue
		}
		if space {
			out = append(out, ' ')
			space = false
		}
		out = append(out, r)
		if len(out) > limit {
			out[limit-1] = '…'
			return string(out[:limit])
		}
	}
	return string(out)
}

// stripTags drops <…> spans. Engines mark matches with <span> or <b>; a
// lone "<" with no ">" after it is text.
func stripTags(s string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '<')
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i:], '>')
		if j < 0 {
			break
		}
		b.WriteString(s[:i])
		b.WriteByte(' ')
		s = s[i+j+1:]
	}
	b.WriteString(s)
	return b.String()
}

// excerpt quotes the start of a body for an error message, as plain text.
func excerpt(b []byte) string {
	if len(b) == 0 {
		return "an empty body"
	}
	return fmt.Sprintf("it starts %q", plain(string(b[:min(len(b), 200)]), 60))
}

// cleanErr keeps a JSON error's message short and on one line.
func cleanErr(err error) error { return errors.New(plain(err.Error(), 160)) }
