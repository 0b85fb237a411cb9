package chat

import (
	"errors"
	"fmt"
	"strings"

	"github.com/magenta-nvim/magenta/pkg/chat/view"
	"github.com/magenta-nvim/magenta/pkg/imagefile"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// Images in a thread. The user attaches them (@image:<path>, :Magenta
// paste-image: the host reads and prepares them, see ImageAttachment)
// and tools return them (get_file of an image, MCP tools); both become
// image blocks of the history, saved with it. The chat draws a line per
// image. A profile with images = false, or one whose model answered a
// request holding images with an error about them, gets a note in each
// image's place instead (withoutImages), and the user is told once.

// ImageLabelPrefix starts the label of an attached image: the chat draws
// such a label on a line of its own under the message.
const ImageLabelPrefix = "image: "

// ImageAttachment is an image the user attached under name (a path as
// typed, or "clipboard"): the model gets a line naming it, then the image.
func ImageAttachment(name string, img imagefile.Image) Attachment {
	return Attachment{
		Label:     fmt.Sprintf("%s%s (%s)", ImageLabelPrefix, name, img),
		Text:      fmt.Sprintf("The user attached the image %s (%s):", name, img),
		MediaType: img.MediaType, Data: img.Data,
	}
}

// ImageNotSent is an image the user attached that could not be sent:
// the model is told it was attached and why it is missing.
func ImageNotSent(name string, why error) Attachment {
	return Attachment{
		Label: fmt.Sprintf("%s%s (not sent: %v)", ImageLabelPrefix, name, why),
		Text:  fmt.Sprintf("The user attached the image %s, but it could not be sent: %v.", name, why),
	}
}

// imageLines are the chat's lines for the images a tool returned, drawn
// under the call (from the data, so a reopened thread draws them too).
func imageLines(images []tools.Image) []string {
	out := make([]string, len(images))
	for i, img := range images {
		out[i] = ImageLabelPrefix + imagefile.Describe(img.MediaType, img.Data)
	}
	return out
}

// imagesOff is why this thread's requests to its profile carry no
// images ("" when they carry them): the profile says its model takes
// none, or the model rejected them.
func (t *Thread) imagesOff() string {
	switch {
	case !t.profile.AcceptsImages():
		return fmt.Sprintf("profile %q takes no images (images = false)", t.profile.Name)
	case t.images.rejectedBy != "" && t.images.rejectedBy == t.profile.Name:
		return fmt.Sprintf("the model of profile %q rejected images", t.profile.Name)
	}
	return ""
}

// imageState is the thread's record of how its images fare.
type imageState struct {
	// rejectedBy is the profile whose model answered a request holding
	// images with an error about them: its later requests leave them out.
	rejectedBy string
	// sent: the current request holds images.
	sent bool
	// noted is the reason last told the user images were left out, so
	// it is said once, not per request.
	noted string
}

// requestMessages are the messages a request sends: the history, with
// each image replaced by a note when the profile takes none.
func (t *Thread) requestMessages() []provider.Message {
	msgs := append([]provider.Message(nil), t.messages...)
	why := t.imagesOff()
	if why == "" {
		t.images.sent = countImages(msgs) > 0
		return msgs
	}
	msgs, n := withoutImages(msgs, why)
	t.images.sent = false
	if n > 0 && t.images.noted != why {
		t.images.noted = why
		t.notice(view.NoticeWarning, fmt.Sprintf("%s left out of the request: %s. Switch to a profile whose model takes images to show them.", view.Count(n, "image was", "images were"), why))
	}
	return msgs
}

func countImages(msgs []provider.Message) int {
	n := 0
	for _, m := range msgs {
		for _, b := range m.Content {
			switch b.Kind {
			case provider.BlockImage:
				n++
			case provider.BlockToolResult:
				for _, r := range b.Result {
					if r.Kind == provider.BlockImage {
						n++
					}
				}
			}
		}
	}
	return n
}

// withoutImages copies msgs with every image (tool results' included)
// replaced by a text note saying why; the history itself is unchanged.
func withoutImages(msgs []provider.Message, why string) ([]provider.Message, int) {
	n := 0
	note := func(b provider.Block) provider.Block {
		n++
		return provider.TextBlock(fmt.Sprintf("[an image (%s) was left out: %s]", imagefile.FormatName(b.MediaType), why))
	}
	out := make([]provider.Message, len(msgs))
	for i, m := range msgs {
		out[i] = m
		if !hasImage(m.Content) {
			continue
		}
		content := make([]provider.Block, len(m.Content))
		for j, b := range m.Content {
			switch {
			case b.Kind == provider.BlockImage:
				b = note(b)
			case b.Kind == provider.BlockToolResult && hasImage(b.Result):
				res := make([]provider.Block, len(b.Result))
				for k, r := range b.Result {
					if r.Kind == provider.BlockImage {
						r = note(r)
					}
					res[k] = r
				}
				b.Result = res
			}
			content[j] = b
		}
		out[i].Content = content
	}
	return out, n
}

func hasImage(blocks []provider.Block) bool {
	for _, b := range blocks {
		if b.Kind == provider.BlockImage || (b.Kind == provider.BlockToolResult && hasImage(b.Result)) {
			return true
		}
	}
	return false
}

// noteImageRejection runs when a request fails: if it held images and
// the provider refused the request with an error about images, the
// thread's later requests to this profile leave them out, and the user
// is told so (instead of the usual failure notice: it reports true). The
// failed request is not sent again by itself (WithRetry never retries a
// 400): the user's next message goes without them.
func (t *Thread) noteImageRejection(err error) bool {
	if !t.images.sent || !isImageRejection(err) {
		return false
	}
	t.images.rejectedBy = t.profile.Name
	t.images.noted = t.imagesOff()
	t.notice(view.NoticeError, fmt.Sprintf("The model of profile %q does not take the images in this thread (%v). Its next requests leave them out; send your message again to go on without them, or switch to a profile whose model takes images (set images = false on a profile to say so beforehand).", t.profile.Name, err))
	return true
}

// isImageRejection reports whether err is the provider refusing the
// request (400, 413, 422) over its images: Anthropic's and OpenAI's
// messages name the image; OpenAI-compatible servers without vision
// speak of image input, vision or multimodal content.
func isImageRejection(err error) bool {
	var pe *provider.Error
	if !errors.As(err, &pe) || pe.Kind != provider.ErrInvalid {
		return false
	}
	msg := strings.ToLower(pe.Message + " " + pe.Type)
	for _, w := range []string{"image", "vision", "multimodal", "multi-modal"} {
		if strings.Contains(msg, w) {
			return true
		}
	}
	return false
}
