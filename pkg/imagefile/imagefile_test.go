package imagefile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"
)

// pngOf encodes a w×h image with some structure (so it compresses like
// a screenshot, not like noise).
func pngOf(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := img.PixOffset(x, y)
			copy(img.Pix[i:i+4], []uint8{uint8(x / 8), uint8(y / 8), 128, 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// noisyPNG does not compress: a small image of many bytes.
func noisyPNG(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	seed := uint32(1)
	for i := range img.Pix {
		seed = seed*1664525 + 1013904223
		img.Pix[i] = uint8(seed >> 24)
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// HugePNGHeader is a PNG whose header claims w×h pixels and which holds
// nothing more: DecodeConfig reads it, a decode would need the pixels.
func HugePNGHeader(w, h uint32) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 6 // 8-bit RGBA
	chunk := append([]byte("IHDR"), ihdr...)
	binary.Write(&b, binary.BigEndian, uint32(len(ihdr)))
	b.Write(chunk)
	binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(chunk))
	return b.Bytes()
}

func TestSniffByContentNotName(t *testing.T) {
	var j, g bytes.Buffer
	src := image.NewRGBA(image.Rect(0, 0, 4, 3))
	jpeg.Encode(&j, src, nil)
	gif.Encode(&g, src, nil)
	for _, tc := range []struct {
		data  []byte
		want  string
		other string
	}{
		{pngOf(t, 4, 3), PNG, ""},
		{j.Bytes(), JPEG, ""},
		{g.Bytes(), GIF, ""},
		{[]byte("RIFF\x10\x00\x00\x00WEBPVP8 "), WebP, ""},
		{[]byte("BM" + strings.Repeat("\x00", 12) + "\x28" + strings.Repeat("\x00", 27)), "", "BMP"},
		{[]byte("II*\x00rest"), "", "TIFF"},
		{[]byte("\x00\x00\x00\x1cftypavif"), "", "AVIF"},
		{[]byte("\x00\x00\x00\x1cftypheic"), "", "HEIC"},
		{[]byte("<svg xmlns='http://www.w3.org/2000/svg'/>"), "", "SVG"},
		{[]byte("BMW makes cars; this is a text file."), "", ""},
		{[]byte("hello"), "", ""},
		{nil, "", ""},
	} {
		mt, other, ok := Sniff(tc.data)
		if mt != tc.want || other != tc.other || ok != (tc.want != "") {
			t.Errorf("Sniff(%q) = %q %q %v, want %q %q", tc.data[:min(len(tc.data), 12)], mt, other, ok, tc.want, tc.other)
		}
	}
}

func TestPrepareKeepsAnImageWithinBounds(t *testing.T) {
	data := pngOf(t, 640, 480)
	img, err := Prepare(data)
	if err != nil {
		t.Fatal(err)
	}
	if img.Scaled() || !bytes.Equal(img.Data, data) || img.Width != 640 || img.Height != 480 || img.MediaType != PNG {
		t.Fatalf("got %v", img)
	}
	if got := img.String(); !strings.HasPrefix(got, "PNG, 640×480, ") {
		t.Errorf("String() = %q", got)
	}
}

func TestPrepareScalesDownAnImageOverTheSideBound(t *testing.T) {
	data := pngOf(t, 2400, 300)
	img, err := Prepare(data)
	if err != nil {
		t.Fatal(err)
	}
	if !img.Scaled() || img.Width != ScaledSide || img.Height != 300*ScaledSide/2400 || img.MediaType != PNG {
		t.Fatalf("got %v", img)
	}
	if img.Original.Width != 2400 || !strings.Contains(img.String(), "scaled down from PNG, 2400×300") {
		t.Errorf("String() = %q", img.String())
	}
	// What it made is an image of the size it says.
	cfg, _, err := image.DecodeConfig(bytes.NewReader(img.Data))
	if err != nil || cfg.Width != img.Width || cfg.Height != img.Height {
		t.Fatalf("decode: %v %+v", err, cfg)
	}
}

func TestPrepareReencodesAnImageOverTheByteBoundAsJPEG(t *testing.T) {
	data := noisyPNG(t, 600, 600) // ~1.4 MB of noise
	lim := Limits{MaxBytes: 400 << 10, MaxSide: 2000}
	img, err := PrepareWithin(data, lim)
	if err != nil {
		t.Fatal(err)
	}
	if !img.Scaled() || img.Bytes > lim.MaxBytes || len(img.Data) != img.Bytes || img.MediaType != JPEG {
		t.Fatalf("got %v (%d bytes)", img, len(img.Data))
	}
}

func TestInspectRefusesBadInput(t *testing.T) {
	good := pngOf(t, 64, 64)
	for _, tc := range []struct {
		name string
		data []byte
		want error
		msg  string
	}{
		{"truncated", good[:len(good)/2], ErrCorrupt, "corrupt or truncated image: PNG"},
		{"garbage after magic", append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{7}, 100)...), ErrCorrupt, "PNG header"},
		{"bmp", []byte("BM" + strings.Repeat("\x00", 12) + "\x28" + strings.Repeat("\x00", 47)), ErrUnsupported, "BMP (models take PNG, JPEG, GIF, WebP)"},
		{"text", []byte("just text"), ErrUnsupported, "not PNG, JPEG, GIF, WebP"},
		{"huge", HugePNGHeader(20000, 20000), ErrTooLarge, "20000×20000 is 400 megapixels, more than the 36"},
		{"zero", HugePNGHeader(0, 10), ErrCorrupt, ""},
	} {
		_, _, err := Inspect(tc.data)
		if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: %v, want %v containing %q", tc.name, err, tc.want, tc.msg)
		}
	}
}

func TestBoundsAreTheStrictest(t *testing.T) {
	if Bounds.MaxBytes != Anthropic.MaxBytes || Bounds.MaxBytes > OpenAI.MaxBytes {
		t.Errorf("Bounds.MaxBytes = %d", Bounds.MaxBytes)
	}
	// Anthropic's 5 MB is on the base64 text of the image.
	if enc := (Bounds.MaxBytes + 2) / 3 * 4; enc > 5<<20 {
		t.Errorf("%d bytes are %d in base64, over 5 MB", Bounds.MaxBytes, enc)
	}
	if Bounds.MaxSide > Anthropic.MaxSide || ScaledSide > Bounds.MaxSide {
		t.Errorf("sides: %+v, scaled %d", Bounds, ScaledSide)
	}
}

// FuzzPrepare: whatever the bytes, Prepare returns an image within Bounds
// whose data decodes to what it says, or an error — never a panic.
func FuzzPrepare(f *testing.F) {
	f.Add(pngOf(f, 8, 8))
	f.Add(HugePNGHeader(9000, 10))
	f.Add([]byte("GIF89a\x01\x00\x01\x00"))
	f.Add([]byte("RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00\x2f\x00\x00\x00\x00"))
	f.Add([]byte{0xFF, 0xD8, 0xFF, 0xE0})
	f.Fuzz(func(t *testing.T, data []byte) {
		if cfg, _, err := image.DecodeConfig(bytes.NewReader(data)); err == nil && int64(cfg.Width)*int64(cfg.Height) > 4_000_000 {
			t.Skip("large decodes make the fuzzer slow, not wiser")
		}
		img, err := Prepare(data)
		if err != nil {
			return
		}
		if !within(img.Info, Bounds) || img.Bytes != len(img.Data) {
			t.Fatalf("out of bounds: %v", img)
		}
		if mt, _, ok := Sniff(img.Data); !ok || mt != img.MediaType {
			t.Fatalf("data is %q, says %q", mt, img.MediaType)
		}
	})
}
