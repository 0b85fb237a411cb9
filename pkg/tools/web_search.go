package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// WebSearchName is the web_search tool's name. The chat leaves the tool
// out when the provider's own search stands in for it.
const WebSearchName = "web_search"

//go:embed web_search.md
var webSearchDescription string

// WebSearchParams is the input of web_search.
type WebSearchParams struct {
	Query      string `json:"query" jsonschema:"what to search for"`
	MaxResults int    `json:"maxResults,omitempty" jsonschema:"how many results to return (optional)"`
}

type webSearchTool struct{ Tool }

// WebSearch returns the web_search tool. It is offered only where the
// environment has a search back end (capabilities.CapWebSearch).
func WebSearch() Tool {
	data := map[string]any{
		"MaxQuery":       capabilities.WebSearchMaxQuery,
		"MaxResults":     capabilities.WebSearchMaxResults,
		"DefaultResults": capabilities.WebSearchDefaultResults,
		"MaxSnippet":     capabilities.WebSearchMaxSnippet,
	}
	return &webSearchTool{Tool: MustTyped(WebSearchName, webSearchDescription, data, runWebSearch)}
}

// Describe implements Describer.
func (*webSearchTool) Describe(input []byte) (string, string) {
	var p WebSearchParams
	if json.Unmarshal(input, &p) != nil {
		return "", ""
	}
	return p.Query, ""
}

func runWebSearch(ctx context.Context, call Call, p WebSearchParams) Result {
	query := strings.TrimSpace(p.Query)
	switch {
	case query == "":
		return Errorf("query must not be empty")
	case utf8.RuneCountInString(query) > capabilities.WebSearchMaxQuery:
		return Errorf(fmt.Sprintf("query must be at most %d characters, not %d", capabilities.WebSearchMaxQuery, utf8.RuneCountInString(query)))
	case p.MaxResults < 0 || p.MaxResults > capabilities.WebSearchMaxResults:
		return Errorf(fmt.Sprintf("maxResults must be between 1 and %d, not %d", capabilities.WebSearchMaxResults, p.MaxResults))
	}
	if call.Env == nil || call.Env.WebSearcher == nil {
		return Errorf("this environment has no web search back end")
	}
	n := p.MaxResults
	if n == 0 {
		n = capabilities.WebSearchDefaultResults
	}
	resp, err := call.Env.WebSearcher.Search(ctx, capabilities.WebSearchRequest{
		ThreadID: call.ThreadID, RequestID: call.ID, Query: query, MaxResults: n,
	})
	var denied *capabilities.DeniedError
	if errors.As(err, &denied) {
		return Result{Text: fmt.Sprintf("The search was not made: %s.", denied.Reason), IsError: true, Summary: "not searched: " + denied.Reason}
	}
	if err != nil {
		return Result{Text: "web search failed: " + err.Error(), IsError: true, Summary: "search failed"}
	}
	return Result{Text: formatSearch(query, resp), Summary: resultCount(len(resp.Results))}
}

// formatSearch is what the model reads: plain text, one numbered block
// per result.
func formatSearch(query string, resp *capabilities.WebSearchResponse) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Web search for %q: %s", query, resultCount(len(resp.Results)))
	if resp.Engine != "" {
		fmt.Fprintf(&b, " (%s)", resp.Engine)
	}
	b.WriteString("\n")
	if len(resp.Results) == 0 && len(resp.Unresponsive) > 0 {
		fmt.Fprintf(&b, "These engines did not answer: %s. Try again later or rephrase.\n", strings.Join(resp.Unresponsive, ", "))
	}
	for i, r := range resp.Results {
		fmt.Fprintf(&b, "\n%d. %s\n   %s\n", i+1, r.Title, r.URL)
		if r.Snippet != "" {
			fmt.Fprintf(&b, "   %s\n", r.Snippet)
		}
	}
	return b.String()
}

func resultCount(n int) string {
	if n == 1 {
		return "1 result"
	}
	return fmt.Sprintf("%d results", n)
}
