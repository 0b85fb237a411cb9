package host_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/chat"
	"github.com/magenta-nvim/magenta/pkg/goldentest"
	"github.com/magenta-nvim/magenta/pkg/nvimtest"
	"github.com/magenta-nvim/magenta/pkg/provider"
)

// Thinking streams folded; = on it in the display expands and folds it.
// :Magenta compact summarizes the conversation, shows the marker (= shows
// the summary), and the next message goes with the summary only.
func TestThinkingFoldAndCompactInNeovim(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := start(t, bin)
		n.Command("Magenta compact")
		n.WaitForText("display", "nothing to compact: the thread is empty")

		n.Type("plan it")
		n.Keys("<CR>")
		call := fake.Next(t)
		call.Thinking("Read the file.\nThen edit it.", "sig")
		n.WaitForText("display", "▸ thinking… (2 lines)")
		call.Text("Planned.")
		call.Stop(provider.StopEndTurn)
		n.WaitForText("display", "ready")
		text := n.WaitForText("display", "▸ thinking (2 lines) · = expands")
		assert.NotContains(t, text, "Read the file.")

		n.FocusRole("display")
		n.CursorTo("▸ thinking")
		n.Keys("=")
		n.WaitForText("display", "  Then edit it.")
		goldentest.Assert(t, "testdata/thinking_expanded.golden", bufferDump(n))
		n.CursorTo("▾ thinking")
		n.Keys("=")
		n.WaitFor("the thinking to fold", func() bool {
			return !strings.Contains(n.Text(n.Buffer("display")), "Then edit it.")
		}, func() string { return n.Text(n.Buffer("display")) })

		n.Command("Magenta compact")
		c := fake.Next(t)
		assert.Empty(t, c.Request.Tools)
		assert.Contains(t, c.LastUserText(), "[user]\nplan it")
		n.WaitForText("display", "⟳ compacting the conversation (2 messages)")
		c.Reply("Summary: a plan was made.")
		n.WaitForText("display", "▸ context compacted (2 messages summarized")
		n.CursorTo("▸ context compacted")
		n.Keys("=")
		n.WaitForText("display", "  Summary: a plan was made.")
		goldentest.Assert(t, "testdata/compaction.golden", bufferDump(n))

		n.FocusRole("input")
		n.Type("go on")
		n.Keys("<CR>")
		next := fake.Next(t)
		require.Len(t, next.Request.Messages, 1)
		assert.True(t, strings.HasPrefix(next.Request.Messages[0].Content[0].Text, chat.SummaryMarker))
		next.Reply("Going on.")
		n.WaitForText("display", "Going on.")
	})
}
