package chat

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/imagefile"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

func testImage(t *testing.T, w, h int) imagefile.Image {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, image.NewNRGBA(image.Rect(0, 0, w, h))))
	img, err := imagefile.Prepare(b.Bytes())
	require.NoError(t, err)
	return img
}

// imagesIn returns the image blocks of msgs, tool results' included.
func imagesIn(msgs []provider.Message) []provider.Block {
	var out []provider.Block
	for _, m := range msgs {
		for _, b := range m.Content {
			if b.Kind == provider.BlockImage {
				out = append(out, b)
			}
			for _, r := range b.Result {
				if r.Kind == provider.BlockImage {
					out = append(out, r)
				}
			}
		}
	}
	return out
}

// An attached image goes to the model after a line naming it and before
// the typed text; the chat draws a line for it under the message.
func TestImageAttachmentReachesTheModelAndIsDrawn(t *testing.T) {
	h := newHarness(t, nil)
	img := testImage(t, 4, 3)
	h.app.SendAttached("what is this? @image:shot.png", []Attachment{ImageAttachment("shot.png", img)})
	call := h.fake.Next(t)
	content := call.Request.Messages[0].Content
	require.Len(t, content, 3)
	assert.Equal(t, "The user attached the image shot.png (PNG, 4×3, "+imagefile.Size(img.Bytes)+"):", content[0].Text)
	assert.Equal(t, provider.Block{Kind: provider.BlockImage, MediaType: "image/png", Data: img.Data}, content[1])
	assert.Equal(t, "what is this? @image:shot.png", content[2].Text)
	h.screen.waitForText(t, "what is this? @image:shot.png\nimage: shot.png (PNG, 4×3, ")
	call.Reply("a black square")
}

// A model that refuses the request over its images is said so, once; the
// request is not sent again by itself, and the next one leaves the
// images out with a note in their place.
func TestImageRejectionIsToldAndImagesAreLeftOut(t *testing.T) {
	h := newHarness(t, nil)
	h.app.SendAttached("look", []Attachment{ImageAttachment("shot.png", testImage(t, 4, 3))})
	call := h.fake.Next(t)
	require.Len(t, imagesIn(call.Request.Messages), 1)
	call.Fail(&provider.Error{Kind: provider.ErrInvalid, Status: 400, Type: "invalid_request_error", Message: "model-a does not support image input"})
	h.screen.waitForText(t, `The model of profile "fast" does not take the images in this thread`)
	h.screen.waitForText(t, "ready")

	h.app.Send("go on without it")
	next := h.fake.Next(t)
	assert.Empty(t, imagesIn(next.Request.Messages))
	assert.Equal(t, `[an image (PNG) was left out: the model of profile "fast" rejected images]`, next.Request.Messages[0].Content[1].Text)
	next.Reply("ok")
	h.screen.waitForText(t, "ok")
	assert.NotContains(t, h.screen.text(), "left out of the request", "the rejection notice already said so")
}

// Other 400s are not image rejections.
func TestIsImageRejection(t *testing.T) {
	assert.True(t, isImageRejection(&provider.Error{Kind: provider.ErrInvalid, Message: "messages.0.content.0.image.source.base64: image exceeds 5 MB maximum"}))
	assert.True(t, isImageRejection(&provider.Error{Kind: provider.ErrInvalid, Message: "This model does not support vision"}))
	assert.False(t, isImageRejection(&provider.Error{Kind: provider.ErrInvalid, Message: "max_tokens: too large"}))
	assert.False(t, isImageRejection(&provider.Error{Kind: provider.ErrServer, Message: "image service down"}))
}

// A profile marked images = false never gets an image: a note takes its
// place, and the user is told once.
func TestProfileWithoutImagesGetsNotes(t *testing.T) {
	screen := newRecordingScreen()
	fake := providertest.New()
	no := false
	reg, err := tools.NewRegistry(imageTool())
	require.NoError(t, err)
	app, err := NewApp(context.Background(), config.Options{Profiles: []config.Profile{{Name: "text-only", Provider: "openai", Model: "m", BaseURL: "http://127.0.0.1:1/v1", Images: &no}}}, AppDeps{
		Screen: screen, Tools: reg, Env: &capabilities.Environment{Name: "test", Cwd: t.TempDir()},
		NewProvider: func(config.Profile) (provider.Provider, error) { return fake, nil },
	})
	require.NoError(t, err)
	t.Cleanup(app.Close)
	app.SendAttached("look", []Attachment{ImageAttachment("a.png", testImage(t, 2, 2))})
	call := fake.Next(t)
	assert.Empty(t, imagesIn(call.Request.Messages))
	assert.Contains(t, call.Request.Messages[0].Content[1].Text, `left out: profile "text-only" takes no images (images = false)`)
	screen.waitForText(t, `1 image was left out of the request: profile "text-only" takes no images`)
	call.ToolUse("t1", "shoot", map[string]any{})
	call.Stop(provider.StopToolUse)
	next := fake.Next(t)
	assert.Empty(t, imagesIn(next.Request.Messages))
	assert.Contains(t, next.Results()["t1"].Result[1].Text, "was left out")
	next.Reply("fine")
	screen.waitForText(t, "fine")
	assert.Equal(t, 1, strings.Count(screen.text(), "left out of the request"))
}

// imageTool returns one 3×2 image.
func imageTool() tools.Tool {
	return tools.MustTyped("shoot", "takes a screenshot", nil, func(_ context.Context, _ tools.Call, _ struct{}) tools.Result {
		var b bytes.Buffer
		png.Encode(&b, image.NewNRGBA(image.Rect(0, 0, 3, 2)))
		return tools.Result{Text: "a screenshot", Images: []tools.Image{{MediaType: "image/png", Data: b.Bytes()}}}
	})
}

// A tool's image reaches the model inside its result, and the chat
// draws a line for it under the call.
func TestToolImageReachesTheModelAndIsDrawn(t *testing.T) {
	reg, err := tools.NewRegistry(imageTool())
	require.NoError(t, err)
	h := newHarness(t, reg)
	h.app.Send("shoot")
	call := h.fake.Next(t)
	call.ToolUse("t1", "shoot", map[string]any{})
	call.Stop(provider.StopToolUse)
	next := h.fake.Next(t)
	res := next.Results()["t1"]
	require.Len(t, res.Result, 2)
	assert.Equal(t, provider.BlockImage, res.Result[1].Kind)
	assert.Equal(t, "image/png", res.Result[1].MediaType)
	h.screen.waitForText(t, "  image: PNG, 3×2, ")
	next.Reply("done")
}

// A thread's images — attached and returned by tools — are saved with
// it: the reopened thread draws their lines and sends them again.
func TestImagesAreSavedAndReopened(t *testing.T) {
	dir := t.TempDir()
	reg, err := tools.NewRegistry(imageTool())
	require.NoError(t, err)
	h, _ := savingHarness(t, dir, reg)
	img := testImage(t, 4, 3)
	h.app.SendAttached("see @image:a.png", []Attachment{ImageAttachment("a.png", img)})
	call := h.fake.Next(t)
	call.ToolUse("t1", "shoot", map[string]any{})
	call.Stop(provider.StopToolUse)
	h.fake.Next(t).Reply("Two images.")
	h.screen.waitForText(t, "Two images.")
	h.screen.waitForText(t, "ready")
	h.app.Close()

	h2, _ := savingHarness(t, dir, reg)
	h2.app.ShowThreads()
	h2.screen.waitForText(t, "see @image:a.png")
	h2.app.Key("activate", h2.screen.lineOf(t, "see @image:a.png"))
	text := h2.screen.waitForText(t, "Two images.")
	assert.Contains(t, text, "see @image:a.png\nimage: a.png (PNG, 4×3, ")
	assert.Contains(t, text, "  image: PNG, 3×2, ")
	assert.NotContains(t, text, "The user attached the image", "the model's line is not drawn as typed")

	h2.app.Send("again")
	next := h2.fake.Next(t)
	got := imagesIn(next.Request.Messages)
	require.Len(t, got, 2)
	assert.Equal(t, img.Data, got[0].Data)
	next.Reply("Still two.")
	h2.screen.waitForText(t, "Still two.")
}
