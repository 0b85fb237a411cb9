package chat

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"github.com/magenta-nvim/magenta/pkg/chat/view"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// The provider's own web search (search.anthropic): on an Anthropic
// profile the request offers the API's server-side search instead of our
// web_search tool, so the model has one search, not two. The API runs
// it within the reply; the reply's blocks keep the searches and what the
// text cites (provider.BlockServerToolUse, BlockServerToolResult, a text
// block's Sources), saved with the thread and sent back as they came.
// The chat draws, after the reply, a line per search and the pages the
// reply cites.

// serverSearch is what the thread's requests ask of the provider's own
// search now (the profile may change between two requests); nil: none.
func (t *Thread) serverSearch() *provider.ServerSearch {
	if !t.deps.ServerSearch || t.profile.Provider != config.ProviderAnthropic {
		return nil
	}
	return &provider.ServerSearch{MaxUses: provider.DefaultServerSearchUses}
}

// searchFilter leaves web_search out of specs while the provider's own
// search stands in for it.
func (t *Thread) searchFilter(specs []tools.Spec) []tools.Spec {
	if t.serverSearch() == nil {
		return specs
	}
	out := specs[:0:0]
	for _, s := range specs {
		if s.Name != tools.WebSearchName {
			out = append(out, s)
		}
	}
	return out
}

// maxPauseContinuations bounds how often one turn goes on with a reply
// the API paused, so a provider that pauses every time cannot loop.
const maxPauseContinuations = 5

// continuePaused sends the history again, the paused reply last, when
// the API paused it (stop_reason "pause_turn": its server-side tools ran
// long), so the model goes on where it stopped; false when the reply was
// not paused or the turn has gone on too often.
func (t *Thread) continuePaused(resp *provider.Response) bool {
	if resp.RawStopReason != "pause_turn" || t.turn.paused >= maxPauseContinuations {
		return false
	}
	t.turn.paused++
	t.startStream()
	return true
}

// drawServerSearches adds, after an assistant message, a line per search
// the provider made in it (query, number of results, or its error) and
// the pages its text cites (title and URL, each once).
func (t *Thread) drawServerSearches(m provider.Message) {
	queries := map[string]string{}
	var cited []provider.Source
	seen := map[string]bool{}
	for _, b := range m.Content {
		switch b.Kind {
		case provider.BlockServerToolUse:
			queries[b.ToolUseID] = searchQuery(b.Input)
		case provider.BlockServerToolResult:
			q := queries[b.ToolUseID]
			if b.IsError {
				t.notice(view.NoticeWarning, fmt.Sprintf("web search %q failed: %s", q, plainLine(b.Text)))
				continue
			}
			t.notice(view.NoticeInfo, fmt.Sprintf("searched the web for %q: %s", q, view.Count(len(b.Sources), "result", "results")))
		case provider.BlockText:
			for _, s := range b.Sources {
				if !seen[s.URL] {
					seen[s.URL] = true
					cited = append(cited, s)
				}
			}
		}
	}
	if len(cited) == 0 {
		return
	}
	lines := []string{"sources cited:"}
	for _, s := range cited {
		lines = append(lines, fmt.Sprintf("%s — %s", plainLine(s.Title), plainLine(s.URL)))
	}
	t.notice(view.NoticeInfo, strings.Join(lines, "\n"))
}

// searchQuery is the query of a server search's input, "" when it has
// none.
func searchQuery(input []byte) string {
	var in struct {
		Query string `json:"query"`
	}
	_ = json.Unmarshal(input, &in)
	return plainLine(in.Query)
}

// plainLine makes text from the web one short line: control characters
// and line breaks become spaces, and it is cut at 200 characters.
func plainLine(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
	if r := []rune(s); len(r) > 200 {
		s = string(r[:199]) + "…"
	}
	return strings.TrimSpace(s)
}
