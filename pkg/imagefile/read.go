package imagefile

import (
	"context"
	"fmt"
	"io"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// MaxFileBytes caps the file Read reads: far over Bounds.MaxBytes, so a
// large screenshot can still be scaled down, but a mistaken multi-GB
// file is refused after a stat, never read.
const MaxFileBytes = 50 << 20

// Read reads path through fs (the caller's FileIO, with its permission
// checks: an image is a read like any other) and prepares it. The size
// is checked first and at most MaxFileBytes+1 bytes are read.
func Read(ctx context.Context, fs capabilities.FileIO, path string) (Image, error) {
	info, err := fs.Stat(ctx, path)
	switch {
	case err != nil:
		return Image{}, err
	case info.IsDir:
		return Image{}, fmt.Errorf("%s: %w", path, capabilities.ErrIsDirectory)
	case info.Size > MaxFileBytes:
		return Image{}, &capabilities.TooLargeError{Size: info.Size, Max: MaxFileBytes}
	}
	r, err := fs.Open(ctx, path)
	if err != nil {
		return Image{}, err
	}
	defer r.Close()
	data, err := io.ReadAll(io.LimitReader(r, MaxFileBytes+1))
	if err != nil {
		return Image{}, err
	}
	if len(data) > MaxFileBytes {
		return Image{}, &capabilities.TooLargeError{Size: int64(len(data)), Max: MaxFileBytes}
	}
	return Prepare(data)
}
