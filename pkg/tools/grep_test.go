package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

type fakeSearcher struct {
	got capabilities.SearchRequest
	res *capabilities.SearchResult
	err error
}

func (f *fakeSearcher) Search(_ context.Context, r capabilities.SearchRequest) (*capabilities.SearchResult, error) {
	f.got = r
	return f.res, f.err
}

func runGrepTool(s *fakeSearcher, input string) Result {
	env := &capabilities.Environment{Cwd: "/ws", Searcher: s}
	return Default().Run(context.Background(), "grep", Call{ID: "tu", ThreadID: "th", Input: json.RawMessage(input), Env: env})
}

func TestGrepRequestAndFormat(t *testing.T) {
	s := &fakeSearcher{res: &capabilities.SearchResult{Matches: 2, Files: []capabilities.SearchFile{
		{Path: "a.go", Matches: 1, Lines: []capabilities.SearchLine{{Number: 3, Text: "before"}, {Number: 4, Text: "func main() {", Match: true}}},
		{Path: "b/c.go", Matches: 1, Lines: []capabilities.SearchLine{{Number: 10, Text: strings.Repeat("x", 3000), Match: true}}},
	}}}
	res := runGrepTool(s, `{"pattern":"func main","path":"src","include":"*.go","ignoreCase":true,"context":1}`)
	assert.False(t, res.IsError)
	assert.Equal(t, capabilities.SearchRequest{ThreadID: "th", RequestID: "tu", Pattern: "func main", Path: "/ws/src", Include: "*.go",
		IgnoreCase: true, Context: 1, MaxMatches: GrepMaxMatches, Timeout: GrepTimeout}, s.got)
	assert.True(t, strings.HasPrefix(res.Text, "a.go\n3- before\n4: func main() {\nb/c.go\n10: xxx"))
	assert.Contains(t, res.Text, "chars cut")
	assert.Equal(t, "2 matches in 2 files", res.Summary)
}

func TestGrepOutcomes(t *testing.T) {
	tests := []struct {
		name string
		res  *capabilities.SearchResult
		err  error
		want string
		bad  bool
	}{
		{"no matches", &capabilities.SearchResult{}, nil, `No matches for "p" in /ws.`, false},
		{"truncated", &capabilities.SearchResult{Matches: GrepMaxMatches, Truncated: true, Files: []capabilities.SearchFile{{Path: "f"}}}, nil,
			fmt.Sprintf("(showing the first %d matches; there are more", GrepMaxMatches), false},
		{"errors only", &capabilities.SearchResult{Errors: []string{"regex parse error"}}, nil, "Errors:\n  regex parse error", true},
		{"timeout", &capabilities.SearchResult{TimedOut: true}, nil, "timed out after 30s", false},
		{"declined", nil, &capabilities.DeniedError{What: "/etc", Reason: "the user declined"}, "The search was not run: the user declined.", true},
		{"no rg", nil, fmt.Errorf("ripgrep not found: install it"), "grep could not run: ripgrep not found", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := runGrepTool(&fakeSearcher{res: tt.res, err: tt.err}, `{"pattern":"p"}`)
			assert.Contains(t, res.Text, tt.want)
			assert.Equal(t, tt.bad, res.IsError)
		})
	}
}

func TestGrepBadInput(t *testing.T) {
	assert.Contains(t, runGrepTool(&fakeSearcher{}, `{"pattern":""}`).Text, "must not be empty")
	assert.Contains(t, runGrepTool(&fakeSearcher{}, `{"pattern":"x","context":99}`).Text, "context must be between 0 and 10")
	assert.Contains(t, runGrepTool(&fakeSearcher{}, `{}`).Text, "invalid input for grep")
}
