package view

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/magenta-nvim/magenta/pkg/goldentest"
)

// manyLines returns n lines "line 1" … "line n".
func manyLines(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("line %d", i+1)
	}
	return out
}

// A block over FoldAfterLines shows its head and tail around a marker
// naming the file with the full text; a huge line shows its two ends.
func TestGoldenFoldedReply(t *testing.T) {
	lines := manyLines(FoldAfterLines + 500)
	lines[3] = strings.Repeat("é", MaxLineChars) // 2 bytes each: cut on a rune boundary
	f := &Frame{Sections: []*Section{
		RenderAssistantHead("e1h", 1, lines, true, FullText{Path: "/tmp/magenta/threads/T/tools/e1/reply.md", Ended: true}),
		RenderAssistantTail("e1t", 1, "the end"),
	}}
	goldentest.Assert(t, "testdata/folded.golden", dump(f))
}

func TestFoldWhileStreaming(t *testing.T) {
	s := RenderAssistantHead("h", 1, manyLines(FoldAfterLines+1), false, FullText{})
	assert.Len(t, s.Lines, FoldHeadLines+1+FoldTailLines)
	assert.Equal(t, "[… 801 lines folded; the full text is saved to a file when the reply ends]", s.Lines[FoldHeadLines].Text)
	assert.Equal(t, "line 1000", s.Lines[FoldHeadLines-1].Text)
	assert.Equal(t, "line 1802", s.Lines[FoldHeadLines+1].Text)

	s = RenderAssistantHead("h", 1, manyLines(FoldAfterLines+1), false, FullText{Ended: true})
	assert.Equal(t, "[… 801 lines folded]", s.Lines[FoldHeadLines].Text, "ended without a file: no promise of one")

	s = RenderAssistantHead("h", 1, manyLines(FoldAfterLines), false, FullText{})
	assert.Len(t, s.Lines, FoldAfterLines, "up to FoldAfterLines nothing is folded")

	tail := RenderAssistantTail("t", 1, strings.Repeat("x", 10<<20))
	assert.Less(t, len(tail.Lines[0].Text), MaxLineChars+100)
	assert.Contains(t, tail.Lines[0].Text, "bytes folded]")

	assert.True(t, Folded(nil, strings.Repeat("x", MaxLineChars+1)))
	assert.True(t, Folded(manyLines(FoldAfterLines+1), ""))
	assert.False(t, Folded(manyLines(FoldAfterLines), "short"))
}
