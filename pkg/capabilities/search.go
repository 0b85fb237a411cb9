package capabilities

import (
	"context"
	"time"
)

// SearchRequest is one content search (ripgrep semantics).
type SearchRequest struct {
	// ThreadID and RequestID identify the tool call (for approvals).
	ThreadID, RequestID string
	// Pattern is a regular expression (Rust regex syntax), or a literal
	// string with FixedStrings. It is never read as a flag.
	Pattern string
	// Path is the absolute file or directory to search.
	Path string
	// Include is a glob the searched files must match ("*.go"), empty for
	// all.
	Include      string
	IgnoreCase   bool
	FixedStrings bool
	// Context is the number of lines shown before and after each match.
	Context int
	// MaxMatches stops collecting after this many matches (the search
	// still counts the rest when it can do so cheaply); 0 means no limit.
	MaxMatches int
	// Timeout ends the search; 0 means the implementation's default.
	Timeout time.Duration
}

// SearchLine is a line of a result: a match, or context around one.
type SearchLine struct {
	Number int    // 1-based
	Text   string // without the newline; invalid UTF-8 replaced
	Match  bool
}

// SearchFile is the matches in one file, in line order.
type SearchFile struct {
	Path    string // relative to the request's Path when below it
	Lines   []SearchLine
	Matches int
}

// SearchResult is what a search found. Files appear in the order the
// searcher reported them. Errors holds messages about files that could
// not be searched (permissions, bad encodings); matches found elsewhere
// are still reported.
type SearchResult struct {
	Files     []SearchFile
	Matches   int  // matches collected into Files
	Truncated bool // more matches existed than MaxMatches
	Errors    []string
	TimedOut  bool
	// SecretsSkipped counts the files in the searched tree that were not
	// searched because they may hold secrets (see pkg/secrets).
	SecretsSkipped int
	// Searcher says which program answered ("rg 14.1.1 at /usr/bin/rg").
	Searcher string
}

// Searcher searches file contents. Implementations are safe for
// concurrent use. An error means the search could not run at all (no
// ripgrep, an invalid pattern is reported in Errors instead); a search
// that found nothing returns an empty result.
type Searcher interface {
	Search(ctx context.Context, req SearchRequest) (*SearchResult, error)
}
