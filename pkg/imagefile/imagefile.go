// Package imagefile turns the bytes of a file into an image a model can
// take: the format told by content (magic bytes, then a decode), never
// by the name; a corrupt or truncated file, or a format no provider
// takes, is refused with a message saying which; an image over the
// providers' bounds is scaled down (Prepare). Pure: no I/O, safe for
// concurrent use.
package imagefile

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	_ "image/gif" // registers GIF for image.Decode
	_ "image/jpeg"
	_ "image/png"
	"strings"

	_ "golang.org/x/image/webp" // registers WebP
)

// The formats every provider magenta speaks to accepts, by media type.
const (
	PNG  = "image/png"
	JPEG = "image/jpeg"
	GIF  = "image/gif"
	WebP = "image/webp"
)

// Supported names the accepted formats, for messages and tool descriptions.
const Supported = "PNG, JPEG, GIF, WebP"

var (
	// ErrUnsupported: the bytes are not one of the Supported formats.
	ErrUnsupported = errors.New("unsupported image format")
	// ErrCorrupt: the bytes start like an image but do not decode.
	ErrCorrupt = errors.New("corrupt or truncated image")
	// ErrTooLarge: the image is over the limits even after scaling, or
	// too large to decode safely.
	ErrTooLarge = errors.New("image too large")
)

// Sniff tells the media type of data from its first bytes; ok is false
// when data is none of the supported formats. other names a known
// unsupported image format ("BMP") so the message can say which.
func Sniff(data []byte) (mediaType string, other string, ok bool) {
	switch {
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return PNG, "", true
	case bytes.HasPrefix(data, []byte{0xFF, 0xD8, 0xFF}):
		return JPEG, "", true
	case bytes.HasPrefix(data, []byte("GIF87a")), bytes.HasPrefix(data, []byte("GIF89a")):
		return GIF, "", true
	case len(data) >= 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WEBP":
		return WebP, "", true
	}
	return "", otherFormat(data), false
}

// otherFormat names image formats people try that no provider takes.
func otherFormat(data []byte) string {
	switch {
	case isBMP(data):
		return "BMP"
	case bytes.HasPrefix(data, []byte("II*\x00")), bytes.HasPrefix(data, []byte("MM\x00*")):
		return "TIFF"
	case bytes.HasPrefix(data, []byte{0, 0, 1, 0}):
		return "ICO"
	case len(data) >= 12 && string(data[4:8]) == "ftyp":
		switch brand := string(data[8:12]); {
		case strings.HasPrefix(brand, "avi"):
			return "AVIF"
		case strings.HasPrefix(brand, "hei"), strings.HasPrefix(brand, "mif"):
			return "HEIC"
		}
	case bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n\ufeff"), []byte("<svg")),
		bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n\ufeff"), []byte("<?xml")) && bytes.Contains(data[:min(len(data), 1024)], []byte("<svg")):
		return "SVG"
	}
	return ""
}

// Info describes an image.
type Info struct {
	MediaType     string
	Width, Height int
	Bytes         int
}

// Format is the short name of the media type ("PNG").
func (i Info) Format() string { return FormatName(i.MediaType) }

// FormatName is the short name of a media type ("image/png" → "PNG").
func FormatName(mediaType string) string {
	switch mediaType {
	case PNG:
		return "PNG"
	case JPEG:
		return "JPEG"
	case GIF:
		return "GIF"
	case WebP:
		return "WebP"
	}
	return strings.TrimPrefix(mediaType, "image/")
}

// String is the line the chat shows: "PNG, 1280×720, 245 KB".
func (i Info) String() string {
	return fmt.Sprintf("%s, %d×%d, %s", i.Format(), i.Width, i.Height, Size(i.Bytes))
}

// Size says a byte count in the unit that reads best.
func Size(n int) string {
	switch {
	case n >= 1<<20:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/(1<<20)), ".0") + " MB"
	case n >= 1<<10:
		return fmt.Sprintf("%d KB", (n+512)>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Inspect checks data by content: the format (Sniff), the dimensions
// (image.DecodeConfig: the header only), and — when the pixel count is
// within MaxDecodePixels — a full decode, which finds a corrupt or
// truncated file. The decoded image is returned for Prepare.
func Inspect(data []byte) (Info, image.Image, error) {
	mt, other, ok := Sniff(data)
	if !ok {
		if other != "" {
			return Info{}, nil, fmt.Errorf("%w: %s (models take %s)", ErrUnsupported, other, Supported)
		}
		return Info{}, nil, fmt.Errorf("%w: not %s", ErrUnsupported, Supported)
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return Info{}, nil, fmt.Errorf("%w: %s header: %v", ErrCorrupt, FormatName(mt), err)
	}
	info := Info{MediaType: mt, Width: cfg.Width, Height: cfg.Height, Bytes: len(data)}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return info, nil, fmt.Errorf("%w: %s of %d×%d pixels", ErrCorrupt, info.Format(), cfg.Width, cfg.Height)
	}
	if px := int64(cfg.Width) * int64(cfg.Height); px > MaxDecodePixels {
		return info, nil, fmt.Errorf("%w: %d×%d is %d megapixels, more than the %d this checks and scales; scale it down first",
			ErrTooLarge, cfg.Width, cfg.Height, px/1_000_000, MaxDecodePixels/1_000_000)
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return info, nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, info.Format(), err)
	}
	return info, img, nil
}

// Describe is the line the chat shows for an image already in a
// message ("PNG, 1280×720, 245 KB"), from its header alone: cheap enough
// to draw every saved image of a reopened thread.
func Describe(mediaType string, data []byte) string {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return fmt.Sprintf("%s, %s", FormatName(mediaType), Size(len(data)))
	}
	return Info{MediaType: mediaType, Width: cfg.Width, Height: cfg.Height, Bytes: len(data)}.String()
}

// isBMP: "BM" and, at 14, one of the DIB header sizes BMP files use — a
// text that starts with "BM" is not an image.
func isBMP(data []byte) bool {
	if len(data) < 18 || !bytes.HasPrefix(data, []byte("BM")) {
		return false
	}
	switch uint32(data[14]) | uint32(data[15])<<8 | uint32(data[16])<<16 | uint32(data[17])<<24 {
	case 12, 40, 52, 56, 64, 108, 124:
		return true
	}
	return false
}
