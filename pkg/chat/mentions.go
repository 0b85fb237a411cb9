package chat

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/magenta-nvim/magenta/pkg/provider"
)

// AttachmentMaxBytes caps the text one mention attaches (a huge diff or
// diagnostics list); the rest is cut with a note saying how much.
const AttachmentMaxBytes = ContextFileMaxBytes

// Attachment is what an @-mention in a user message expanded to when it
// was sent (@diag, @qf, @diff, @staged): Label names it in the chat
// ("@diff (12 lines)"), Text is what the model gets. @file and @buf are
// not attachments: they become context files.
type Attachment struct {
	Label string
	Text  string
	// An @image mention or a pasted image: the image the model gets
	// after Text (images.go). Label then starts with ImageLabelPrefix.
	MediaType string
	Data      []byte
}

// SendAttached sends text in the active thread with what its mentions
// expanded to.
func (a *App) SendAttached(text string, att []Attachment) {
	a.do(func() { a.showActive(); a.active.SendAttached(text, att) })
}

// SendAttached queues a user message with its attachments.
func (t *Thread) SendAttached(text string, att []Attachment) {
	t.enqueue(msgSend{text: text, attached: att, typed: true})
}

// attachmentBlocks are the blocks the model gets for att, before the
// message's own text.
func attachmentBlocks(att []Attachment) []provider.Block {
	blocks := make([]provider.Block, 0, len(att))
	for _, a := range att {
		text := a.Text
		if len(text) > AttachmentMaxBytes {
			n := AttachmentMaxBytes
			for n > 0 && !utf8.RuneStart(text[n]) {
				n-- // never inside a rune
			}
			text = fmt.Sprintf("%s\n[cut: %d of %d bytes shown]", text[:n], n, len(a.Text))
		}
		blocks = append(blocks, provider.TextBlock(text))
		if len(a.Data) > 0 {
			blocks = append(blocks, provider.Block{Kind: provider.BlockImage, MediaType: a.MediaType, Data: a.Data})
		}
	}
	return blocks
}

// shownText is a user message as the chat draws it: the text as typed
// (mentions included), a line per image, and a line listing what the
// other mentions attached.
func shownText(text string, att []Attachment) string {
	var labels, images []string
	for _, a := range att {
		if strings.HasPrefix(a.Label, ImageLabelPrefix) {
			images = append(images, a.Label)
		} else {
			labels = append(labels, a.Label)
		}
	}
	for _, l := range images {
		text += "\n" + l
	}
	if len(labels) == 0 {
		return text
	}
	return text + "\n(attached: " + strings.Join(labels, ", ") + ")"
}
