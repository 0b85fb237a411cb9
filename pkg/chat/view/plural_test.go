package view

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Counts the chat draws agree with their number: "1 message", never
// "1 messages".
func TestCountsAreSingularForOne(t *testing.T) {
	assert.Equal(t, "1 message", Count(1, "message", "messages"))
	assert.Equal(t, "0 messages", Count(0, "message", "messages"))
	assert.Equal(t, "2 messages", Count(2, "message", "messages"))

	list := strings.Join(RenderThreadList([]ThreadSummary{
		{ID: "a", Title: "one", Profile: "p", Status: "idle", Messages: 1},
		{ID: "b", Title: "two", Profile: "p", Status: "idle", Messages: 2},
	}, "", "", 1).Texts(), "\n")
	assert.Contains(t, list, "one  [p, idle, 1 message]")
	assert.Contains(t, list, "two  [p, idle, 2 messages]")

	assert.Equal(t, "[… 1 line folded]", foldMarker(1, FullText{Ended: true}).Text)
	lines := appendDiff(nil, strings.Repeat("+a\n", maxDiffLines), maxDiffLines+1)
	assert.Equal(t, "  … 1 more diff line", lines[len(lines)-1].Text)
}
