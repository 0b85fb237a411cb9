package capabilities

import (
	"context"
	"time"
)

// Web search limits shared by back ends and the web_search tool (its
// description is filled from them).
const (
	// WebSearchMaxResults caps maxResults; WebSearchDefaultResults is
	// used when the model gives none.
	WebSearchMaxResults     = 10
	WebSearchDefaultResults = 5
	// WebSearchMaxQuery caps the query, in characters.
	WebSearchMaxQuery = 400
	// Each result's fields are cut to these many characters, so a page of
	// results stays small whatever the engine answers.
	WebSearchMaxTitle   = 200
	WebSearchMaxURL     = 500
	WebSearchMaxSnippet = 500
	// WebSearchMaxBytes caps a back end's answer; a longer one is refused
	// rather than parsed half.
	WebSearchMaxBytes = 1 << 20
	// WebSearchTimeout bounds one search, approval wait excluded.
	WebSearchTimeout = 20 * time.Second
)

// WebSearchRequest is one search.
type WebSearchRequest struct {
	// ThreadID and RequestID identify the tool call (for approvals).
	ThreadID, RequestID string
	Query               string
	// MaxResults is how many results to return at most, from 1 to
	// WebSearchMaxResults.
	MaxResults int
	// CheckHost, when set, approves the back end's origin (and each
	// redirect's) on the addresses it resolved to before it is contacted,
	// as for a fetch.
	CheckHost CheckHost
}

// WebSearchResult is one hit: plain text (no markup), each field cut to
// its WebSearchMax* bound; URL is http or https.
type WebSearchResult struct {
	Title, URL, Snippet string
}

// WebSearchResponse is what a search found.
type WebSearchResponse struct {
	// Engine names the back end ("searxng").
	Engine  string
	Results []WebSearchResult
	// Unresponsive names upstream engines the back end said failed, so
	// an empty answer can be told from a broken one.
	Unresponsive []string
}

// WebSearcher searches the web. A back end that cannot be reached, is
// too slow, answers with an error status or with something that is not
// a search answer is an error that says which. Implementations are safe
// for concurrent use.
type WebSearcher interface {
	Search(ctx context.Context, req WebSearchRequest) (*WebSearchResponse, error)
}
