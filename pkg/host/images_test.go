package host_test

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/goldentest"
	"github.com/magenta-nvim/magenta/pkg/host"
	"github.com/magenta-nvim/magenta/pkg/nvimtest"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/anthropic"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
)

// startAnthropic opens a Neovim whose host talks to a fake Messages API
// over HTTP and SSE through the real Anthropic adapter, so the tests see
// the request bodies as they go on the wire. env is added to Neovim's.
func startAnthropic(t *testing.T, bin string, env []string, replies ...providertest.Reply) (*nvimtest.Nvim, *providertest.AnthropicServer, *host.Host) {
	t.Helper()
	srv := providertest.NewAnthropicServer(t, replies...)
	n := nvimtest.Start(t, bin, env...)
	h := n.StartHost(host.Options{Version: "test", NewProvider: func(config.Profile) (provider.Provider, error) {
		return anthropic.New(anthropic.Options{BaseURL: srv.URL, APIKey: "k"})
	}})
	n.Setup(testOptions)
	n.Command("Magenta toggle")
	n.WaitForText("display", "# New thread")
	return n, srv, h
}

// pngFile writes a w×h PNG (a diagonal line, so it is not all one colour)
// and returns its bytes.
func pngFile(t *testing.T, path string, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < w && i < h; i++ {
		img.Pix[img.PixOffset(i, i)+3] = 255
	}
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, img))
	require.NoError(t, os.WriteFile(path, b.Bytes(), 0o644))
	return b.Bytes()
}

// wireImage is an image block as the Messages API gets it.
type wireImage struct {
	Type   string `json:"type"`
	Source struct {
		Type      string `json:"type"`
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
	} `json:"source"`
}

// wireImages returns the image blocks of a request body: the messages'
// own and those inside tool results, in order.
func wireImages(t *testing.T, body []byte) []wireImage {
	t.Helper()
	var req struct {
		Messages []struct {
			Content []json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	require.NoError(t, json.Unmarshal(body, &req))
	var out []wireImage
	var walk func(blocks []json.RawMessage)
	walk = func(blocks []json.RawMessage) {
		for _, raw := range blocks {
			var b struct {
				Type    string            `json:"type"`
				Content []json.RawMessage `json:"content"`
			}
			require.NoError(t, json.Unmarshal(raw, &b))
			switch b.Type {
			case "image":
				var img wireImage
				require.NoError(t, json.Unmarshal(raw, &img))
				out = append(out, img)
			case "tool_result":
				walk(b.Content)
			}
		}
	}
	for _, m := range req.Messages {
		walk(m.Content)
	}
	return out
}

// @image:<path> and get_file of an image reach the model as images (the
// base64 of the file and its media type, on the wire), and the chat
// draws a line for each.
func TestImagesReachTheModel(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, srv, _ := startAnthropic(t, bin, nil,
			providertest.Reply{StopReason: "tool_use", Blocks: []providertest.ReplyBlock{
				{Type: "tool_use", ID: "toolu_1", Name: "get_file", Input: `{"path":"diagram.dat"}`},
			}},
			providertest.Reply{StopReason: "end_turn", Blocks: []providertest.ReplyBlock{{Type: "text", Text: "Two images seen."}}},
		)
		shot := pngFile(t, filepath.Join(n.Dir, "shot.png"), 40, 30)
		// Told by content: a PNG named .dat is an image.
		diagram := pngFile(t, filepath.Join(n.Dir, "diagram.dat"), 20, 10)
		n.FocusRole("input")
		n.Type("what is in @image:shot.png?")
		n.Keys("<CR>")
		n.WaitForText("display", "Two images seen.")
		n.WaitForText("display", "ready")

		bodies := srv.Bodies()
		require.Len(t, bodies, 2)
		first := wireImages(t, bodies[0])
		require.Len(t, first, 1)
		assert.Equal(t, "base64", first[0].Source.Type)
		assert.Equal(t, "image/png", first[0].Source.MediaType)
		assert.Equal(t, base64.StdEncoding.EncodeToString(shot), first[0].Source.Data)
		second := wireImages(t, bodies[1])
		require.Len(t, second, 2, "the attached image stays in the history; get_file's follows")
		assert.Equal(t, base64.StdEncoding.EncodeToString(diagram), second[1].Source.Data)
		assert.Contains(t, string(bodies[0]), `"text":"The user attached the image shot.png (PNG, 40×30, `)

		goldentest.Assert(t, "testdata/images.golden", chatDump(bufferDump(n)))
	})
}

// hugePNG is a PNG whose header claims w×h pixels and holds nothing
// more: too many to decode, whatever the file's size.
func hugePNG(t *testing.T, path string, w, h uint32) {
	t.Helper()
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 6
	chunk := append([]byte("IHDR"), ihdr...)
	require.NoError(t, binary.Write(&b, binary.BigEndian, uint32(len(ihdr))))
	b.Write(chunk)
	require.NoError(t, binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(chunk)))
	require.NoError(t, os.WriteFile(path, b.Bytes(), 0o644))
}

// Bad images: a wide one is scaled down, a corrupt one, an unsupported
// format, one too large to decode and one outside the workspace are not
// sent, each named with why; the message still goes. A model that then
// refuses the images (a 400 about them) is said so, is not asked again
// by itself, and the next request leaves them out.
func TestBadImagesAndARejectingModel(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, srv, _ := startAnthropic(t, bin, nil,
			providertest.Reply{Status: 400, ErrorType: "invalid_request_error", ErrorMessage: "messages.0.content.9.image.source.base64: image exceeds 5 MB maximum"},
			providertest.Reply{StopReason: "end_turn", Blocks: []providertest.ReplyBlock{{Type: "text", Text: "Without it."}}},
		)
		pngFile(t, filepath.Join(n.Dir, "wide.png"), 2100, 60)
		good := pngFile(t, filepath.Join(t.TempDir(), "x.png"), 50, 50)
		require.NoError(t, os.WriteFile(filepath.Join(n.Dir, "cut.png"), good[:len(good)-30], 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(n.Dir, "old.bmp"), []byte("BM"+strings.Repeat("\x00", 12)+"\x28"+strings.Repeat("\x00", 47)), 0o644))
		hugePNG(t, filepath.Join(n.Dir, "huge.png"), 20000, 20000)
		outside := filepath.Join(t.TempDir(), "elsewhere.png")
		pngFile(t, outside, 8, 8)

		n.FocusRole("input")
		n.Type("look: @image:wide.png @image:cut.png @image:old.bmp @image:huge.png @image:" + outside)
		n.Keys("<CR>")
		text := n.WaitForText("display", "does not take the images in this thread")
		assert.Contains(t, text, "image: wide.png (PNG, 1568×44, ")
		assert.Contains(t, text, "(scaled down from PNG, 2100×60, ")
		assert.Contains(t, text, "\nimage: cut.png (not sent: corrupt or truncated image: PNG")
		assert.Contains(t, text, "\nimage: old.bmp (not sent: unsupported image format: BMP (models take PNG, JPEG, GIF, WebP))\n")
		assert.Contains(t, text, "\nimage: huge.png (not sent: image too large: 20000×20000 is 400 megapixels")
		assert.Contains(t, text, "elsewhere.png (not sent: reads ")
		assert.Contains(t, text, "outside the workspace; only a tool call can ask for that (copy it into the workspace, or let the model read it with get_file, which asks))")
		assert.NotContains(t, text, "the request failed", "the image notice says it, once")
		assert.Contains(t, text, "image exceeds 5 MB maximum")
		n.WaitForText("display", "ready")

		bodies := srv.Bodies()
		require.Len(t, bodies, 1, "a 400 is not sent again")
		imgs := wireImages(t, bodies[0])
		require.Len(t, imgs, 1, "only the image that could be read goes")
		assert.Equal(t, "image/png", imgs[0].Source.MediaType)
		assert.Contains(t, string(bodies[0]), "The user attached the image cut.png, but it could not be sent: corrupt or truncated image")

		n.FocusRole("input")
		n.Type("go on")
		n.Keys("<CR>")
		n.WaitForText("display", "Without it.")
		bodies = srv.Bodies()
		require.Len(t, bodies, 2)
		assert.Empty(t, wireImages(t, bodies[1]))
		assert.Contains(t, string(bodies[1]), `[an image (PNG) was left out: the model of profile \"fast\" rejected images]`)
	})
}

// A thread with an image is saved with it: reopened in a new host, it
// draws the image's line and sends the image again.
func TestThreadWithImageReopens(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		dataDir, work := t.TempDir(), t.TempDir()
		shot := pngFile(t, filepath.Join(work, "shot.png"), 12, 9)
		open := func(replies ...providertest.Reply) (*nvimtest.Nvim, *providertest.AnthropicServer, *host.Host) {
			srv := providertest.NewAnthropicServer(t, replies...)
			n := nvimtest.Start(t, bin, "XDG_DATA_HOME="+dataDir)
			h := n.StartHost(host.Options{Version: "test", NewProvider: func(config.Profile) (provider.Provider, error) {
				return anthropic.New(anthropic.Options{BaseURL: srv.URL, APIKey: "k"})
			}})
			n.Command("cd " + work)
			n.Setup(testOptions)
			n.Command("Magenta toggle")
			return n, srv, h
		}
		n, _, h := open(providertest.Reply{StopReason: "end_turn", Blocks: []providertest.ReplyBlock{{Type: "text", Text: "A line."}}})
		n.FocusRole("input")
		n.Type("keep @image:shot.png")
		n.Keys("<CR>")
		n.WaitForText("display", "A line.")
		n.WaitForText("display", "ready")
		h.Close()

		n, srv, _ := open(providertest.Reply{StopReason: "end_turn", Blocks: []providertest.ReplyBlock{{Type: "text", Text: "Still there."}}})
		n.Command("Magenta threads")
		n.WaitForText("display", "keep @image:shot.png")
		n.FocusRole("display")
		n.CursorTo("keep @image:shot.png")
		n.Keys("<CR>")
		text := n.WaitForText("display", "A line.")
		assert.Contains(t, text, "keep @image:shot.png\nimage: shot.png (PNG, 12×9, ")
		n.FocusRole("input")
		n.Type("and now?")
		n.Keys("<CR>")
		n.WaitForText("display", "Still there.")
		imgs := wireImages(t, srv.Bodies()[0])
		require.Len(t, imgs, 1)
		assert.Equal(t, base64.StdEncoding.EncodeToString(shot), imgs[0].Source.Data)
	})
}

// chatDump is bufferDump from the first message on: the header's
// highlights settle on their own schedule once usage arrives (the header
// gains a tokens line), which is not what these tests are about.
func chatDump(dump string) string {
	lines := strings.Split(dump, "\n")
	first := -1
	var out []string
	inHighlights := false
	for _, l := range lines {
		switch {
		case l == "-- highlights":
			inHighlights = true
			out = append(out, l)
		case !inHighlights:
			if first < 0 && strings.HasSuffix(l, "| ## user") {
				first, _ = strconv.Atoi(strings.TrimSpace(strings.SplitN(l, "|", 2)[0]))
			}
			if first >= 0 {
				out = append(out, l)
			}
		default:
			if f := strings.Fields(l); len(f) > 0 {
				if row, err := strconv.Atoi(f[0]); err == nil && row >= first {
					out = append(out, l)
				}
			}
		}
	}
	return strings.Join(out, "\n") + "\n"
}
