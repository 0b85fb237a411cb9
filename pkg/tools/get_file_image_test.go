package tools

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"

	"github.com/magenta-nvim/magenta/pkg/capabilities/memfs"
	"github.com/magenta-nvim/magenta/pkg/imagefile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func pngBytes(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < w && i < h; i++ {
		img.Set(i, i, color.NRGBA{255, 0, 0, 255})
	}
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, img))
	return b.Bytes()
}

// The format is told by content: a PNG named .txt is an image, a text
// named .png is text, a BMP is refused by name, a truncated PNG is
// corrupt, a large one is scaled down.
func TestGetFileImagesByContent(t *testing.T) {
	fs := memfs.New()
	small := pngBytes(t, 40, 30)
	fs.Put("/ws/shot.txt", small)
	fs.Put("/ws/notes.png", []byte("just notes\n"))
	fs.Put("/ws/old.bmp", []byte("BM"+strings.Repeat("\x00", 12)+"\x28"+strings.Repeat("\x00", 47)))
	fs.Put("/ws/cut.png", small[:len(small)-20])
	fs.Put("/ws/big.png", pngBytes(t, 2100, 60))

	res := getFileWith(fs, `{"path":"shot.txt"}`)
	require.False(t, res.IsError, res.Text)
	require.Len(t, res.Images, 1)
	assert.Equal(t, small, res.Images[0].Data)
	assert.Equal(t, "/ws/shot.txt: an image, PNG, 40×30, "+imagefile.Size(len(small))+". It follows.", res.Text)

	res = getFileWith(fs, `{"path":"notes.png"}`)
	assert.Equal(t, "1\tjust notes", res.Text)

	res = getFileWith(fs, `{"path":"old.bmp"}`)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text, "is a BMP image; models take PNG, JPEG, GIF, WebP only")

	res = getFileWith(fs, `{"path":"cut.png"}`)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text, "/ws/cut.png was not read: corrupt or truncated image: PNG")

	res = getFileWith(fs, `{"path":"big.png"}`)
	require.False(t, res.IsError, res.Text)
	require.Len(t, res.Images, 1)
	assert.Contains(t, res.Text, "an image, PNG, 1568×44, ")
	assert.Contains(t, res.Text, "(scaled down from PNG, 2100×60, ")
}
