package chat

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/provider"
)

// Attachments go before the text of their own message, also when the
// message was queued during a turn; the chat lists them under the text.
func TestAttachmentsGoWithTheirMessage(t *testing.T) {
	h := newHarness(t, nil)
	h.app.SendAttached("see @diag", []Attachment{{Label: "@diag (1)", Text: "Diagnostics (@diag):\na.go:1:1: ERROR: x"}})
	call := h.fake.Next(t)
	content := call.Request.Messages[0].Content
	require.Len(t, content, 2)
	assert.Equal(t, "Diagnostics (@diag):\na.go:1:1: ERROR: x", content[0].Text)
	assert.Equal(t, "see @diag", content[1].Text)
	h.screen.waitForText(t, "see @diag\n(attached: @diag (1))")

	h.app.SendAttached("and @qf", []Attachment{{Label: "@qf (2)", Text: "Quickfix list (@qf):\n…"}})
	h.screen.waitForText(t, "(attached: @qf (2))")
	call.Reply("done")
	next := h.fake.Next(t)
	last := next.Request.Messages[len(next.Request.Messages)-1].Content
	require.Len(t, last, 2)
	assert.Equal(t, "Quickfix list (@qf):\n…", last[0].Text)
	assert.Equal(t, "and @qf", last[1].Text)
}

func TestAttachmentsAreCut(t *testing.T) {
	big := strings.Repeat("x", AttachmentMaxBytes+10)
	blocks := attachmentBlocks([]Attachment{{Label: "@diff", Text: big}})
	require.Len(t, blocks, 1)
	assert.Equal(t, provider.BlockText, blocks[0].Kind)
	assert.True(t, strings.HasSuffix(blocks[0].Text, "\n[cut: 204800 of 204810 bytes shown]"), blocks[0].Text[len(blocks[0].Text)-60:])
	assert.Equal(t, "hi", shownText("hi", nil))
}
