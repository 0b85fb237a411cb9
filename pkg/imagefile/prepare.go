package imagefile

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"

	"golang.org/x/image/draw"
)

// Limits are a provider's documented bounds on one image in a request.
type Limits struct {
	// MaxBytes bounds the image file itself.
	MaxBytes int
	// MaxSide bounds the width and the height, in pixels.
	MaxSide int
}

// The providers' bounds (read 2026-11; see doc/magenta.txt, magenta-images).
var (
	// Anthropic refuses an image whose base64 text is over 5 MB (so
	// 3.75 MB of file), one over 8000 px a side, and — in a request
	// holding more than 20 images — one over 2000 px a side. It scales
	// anything over 1568 px on the long edge down itself.
	Anthropic = Limits{MaxBytes: (5 << 20) / 4 * 3, MaxSide: 8000}
	// AnthropicManyImages is the side bound once a request holds more
	// than 20 images, which a long thread reaches.
	AnthropicManyImages = 2000
	// OpenAI takes up to 20 MB an image (50 MB a request) and scales a
	// high-detail image to fit 2048×2048 and then 768 px on the short
	// side; it states no side it refuses.
	OpenAI = Limits{MaxBytes: 20 << 20, MaxSide: 0}
)

// Bounds is what Prepare holds every image to: the strictest of the
// providers' bounds, because an image stays in a thread's history and
// goes to whichever model the thread's profile names later. The side
// bound is Anthropic's many-image one, so a thread with many images
// does not start failing at its 21st.
var Bounds = Limits{MaxBytes: min(Anthropic.MaxBytes, OpenAI.MaxBytes), MaxSide: AnthropicManyImages}

// ScaledSide is the long edge an image over Bounds is scaled down to:
// Anthropic's recommended maximum, past which it scales down itself (and
// within OpenAI's 2048 box), so nothing a model would see is lost.
const ScaledSide = 1568

// MaxDecodePixels bounds the images Inspect decodes (and Prepare can
// scale): an 8K screenshot (7680×4320) fits; decoding costs 4 bytes a
// pixel, so this caps a decode near 150 MB.
const MaxDecodePixels = 36_000_000

// jpegQuality is the quality of re-encoded JPEGs: text in screenshots
// stays sharp.
const jpegQuality = 85

// Image is an image ready for a request.
type Image struct {
	Info
	Data []byte
	// Original describes the file when it was scaled down (zero when
	// the image is the file as it was).
	Original Info
}

// Scaled reports whether the image was scaled down from the file.
func (i Image) Scaled() bool { return i.Original.Bytes != 0 }

// String is the line the chat shows: "PNG, 1568×882, 412 KB (scaled
// down from PNG, 3840×2160, 6.1 MB)".
func (i Image) String() string {
	if i.Scaled() {
		return fmt.Sprintf("%s (scaled down from %s)", i.Info, i.Original)
	}
	return i.Info.String()
}

// Prepare checks data (Inspect) and returns it as it is when it is within
// Bounds; otherwise it scales it down to ScaledSide on the long edge and
// encodes it again (JPEG stays JPEG; others become PNG, or JPEG when the
// PNG is still over MaxBytes). An animated GIF that must be scaled keeps
// its first frame.
func Prepare(data []byte) (Image, error) {
	return PrepareWithin(data, Bounds)
}

// PrepareWithin is Prepare for other limits (tests).
func PrepareWithin(data []byte, lim Limits) (Image, error) {
	info, img, err := Inspect(data)
	if err != nil {
		return Image{}, err
	}
	if within(info, lim) {
		return Image{Info: info, Data: data}, nil
	}
	side := ScaledSide
	if lim.MaxSide > 0 {
		side = min(side, lim.MaxSide)
	}
	for range 3 {
		out, err := scale(img, info, side, lim)
		if err != nil {
			return Image{}, err
		}
		if within(out.Info, lim) {
			out.Original = info
			return out, nil
		}
		side = side * 2 / 3 // noise does not compress: fewer pixels do
	}
	return Image{}, fmt.Errorf("%w: %s stays over %s even scaled down", ErrTooLarge, info, Size(lim.MaxBytes))
}

func within(i Info, lim Limits) bool {
	return i.Bytes <= lim.MaxBytes && (lim.MaxSide <= 0 || (i.Width <= lim.MaxSide && i.Height <= lim.MaxSide))
}

// scale draws img into a box of side pixels (aspect kept, never larger)
// and encodes it.
func scale(img image.Image, info Info, side int, lim Limits) (Image, error) {
	w, h := info.Width, info.Height
	if w >= h && w > side {
		w, h = side, max(1, h*side/w)
	} else if h > w && h > side {
		w, h = max(1, w*side/h), side
	}
	// An *image.RGBA destination takes x/image/draw's fast paths (an
	// NRGBA one is several times slower).
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.CatmullRom.Scale(dst, dst.Bounds(), img, img.Bounds(), draw.Src, nil)
	if info.MediaType != JPEG {
		var b bytes.Buffer
		if err := png.Encode(&b, dst); err != nil {
			return Image{}, fmt.Errorf("encode PNG: %w", err)
		}
		if b.Len() <= lim.MaxBytes {
			return Image{Info: Info{MediaType: PNG, Width: w, Height: h, Bytes: b.Len()}, Data: b.Bytes()}, nil
		}
	}
	// JPEG has no alpha: transparent parts are drawn on white, as a
	// viewer shows them, instead of turning black.
	flat := image.NewRGBA(dst.Bounds())
	draw.Draw(flat, flat.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	draw.Draw(flat, flat.Bounds(), dst, image.Point{}, draw.Over)
	var b bytes.Buffer
	if err := jpeg.Encode(&b, flat, &jpeg.Options{Quality: jpegQuality}); err != nil {
		return Image{}, fmt.Errorf("encode JPEG: %w", err)
	}
	return Image{Info: Info{MediaType: JPEG, Width: w, Height: h, Bytes: b.Len()}, Data: b.Bytes()}, nil
}
