package view

import (
	"testing"

	"github.com/magenta-nvim/magenta/pkg/goldentest"
)

// Thinking folded (streaming and done) and expanded; a compaction
// marker while it runs, folded, and expanded.
func TestGoldenThinkingAndCompaction(t *testing.T) {
	thought := "The user wants the parser fixed.\nRead parser.go first,\nthen run the tests."
	summary := "Goal: fix the parser dropping the last token.\nDone: read parser.go; the loop stops one early.\nOpen: run the tests."
	f := &Frame{Sections: []*Section{
		RenderThinking("T", "e1", 1, "The user wants", true, true, false),
		RenderThinking("T", "e2", 1, thought, true, false, false),
		RenderThinking("T", "e3", 1, thought, false, false, true),
		RenderCompaction("T", "e4", 1, Compaction{Running: true, Messages: 12}),
		RenderCompaction("T", "e5", 1, Compaction{Messages: 12, Summary: summary}),
		RenderCompaction("T", "e6", 1, Compaction{Messages: 1, Summary: summary, Expanded: true}),
	}}
	goldentest.Assert(t, "testdata/thinking.golden", dump(f))
}
