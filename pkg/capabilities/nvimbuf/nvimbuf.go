// Package nvimbuf is the buffer-aware FileIO: a path loaded in a Neovim
// buffer is read from the buffer, unsaved changes included, and written
// through the buffer and saved, so the user's undo history and cursor
// survive and their language servers see the change; other paths go to
// the disk FileIO it wraps. The user's editor is the truth, not the disk
// (gopls' overlay file system works the same way).
//
// Buffer text is turned into file bytes the way Neovim would write it:
// lines joined by "\n" ("\r\n" for fileformat=dos), with a final newline
// when 'eol' or 'fixeol' is set (a file read without one is written with
// one under the default 'fixeol', so that is the buffer's truth); writes
// split the other way round.
package nvimbuf

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// Lua is the part of the RPC client this package uses (*nvim.Nvim).
type Lua interface {
	ExecLua(code string, result any, args ...any) error
}

// FS implements capabilities.FileIO over Neovim's buffers and disk.
type FS struct {
	nv   Lua
	disk capabilities.FileIO
}

var _ capabilities.FileIO = (*FS)(nil)

// New returns a buffer-aware FileIO falling back to disk.
func New(nv Lua, disk capabilities.FileIO) *FS { return &FS{nv: nv, disk: disk} }

type bufferText struct {
	Loaded   bool     `msgpack:"loaded"`
	Lines    []string `msgpack:"lines"`
	EOL      bool     `msgpack:"eol"`
	DOS      bool     `msgpack:"dos"`
	Modified bool     `msgpack:"modified"`
}

func (b bufferText) content() []byte {
	sep := "\n"
	if b.DOS {
		sep = "\r\n"
	}
	s := strings.Join(b.Lines, sep)
	if b.EOL {
		s += sep
	}
	return []byte(s)
}

func (f *FS) buffer(ctx context.Context, path string) (bufferText, error) {
	if err := ctx.Err(); err != nil {
		return bufferText{}, err
	}
	var b bufferText
	if err := f.nv.ExecLua(`return require('magenta.files').read(...)`, &b, path); err != nil {
		return bufferText{}, fmt.Errorf("read buffer %s: %w", path, err)
	}
	return b, nil
}

// Open implements capabilities.FileIO.
func (f *FS) Open(ctx context.Context, path string) (io.ReadCloser, error) {
	b, err := f.buffer(ctx, path)
	if err != nil {
		return nil, err
	}
	if b.Loaded {
		return io.NopCloser(bytes.NewReader(b.content())), nil
	}
	return f.disk.Open(ctx, path)
}

// ReadFile implements capabilities.FileIO.
func (f *FS) ReadFile(ctx context.Context, path string) ([]byte, error) {
	b, err := f.buffer(ctx, path)
	if err != nil {
		return nil, err
	}
	if b.Loaded {
		return b.content(), nil
	}
	return f.disk.ReadFile(ctx, path)
}

// WriteFile implements capabilities.FileIO: a loaded buffer is changed in
// place (one undo step, only the lines that differ) and saved.
func (f *FS) WriteFile(ctx context.Context, path string, data []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	lines, eol, dos := splitContent(data)
	var wrote bool
	if err := f.nv.ExecLua(`return require('magenta.files').write(...)`, &wrote, path, lines, eol, dos); err != nil {
		return fmt.Errorf("write buffer %s: %w", path, err)
	}
	if wrote {
		return nil
	}
	return f.disk.WriteFile(ctx, path, data)
}

// splitContent turns file bytes into buffer lines.
func splitContent(data []byte) (lines []string, eol, dos bool) {
	s := string(data)
	dos = strings.Contains(s, "\r\n")
	if dos {
		s = strings.ReplaceAll(s, "\r\n", "\n")
	}
	eol = strings.HasSuffix(s, "\n")
	s = strings.TrimSuffix(s, "\n")
	return strings.Split(s, "\n"), eol, dos
}

// Stat implements capabilities.FileIO; a loaded buffer's size is its text.
func (f *FS) Stat(ctx context.Context, path string) (capabilities.FileInfo, error) {
	b, err := f.buffer(ctx, path)
	if err != nil {
		return capabilities.FileInfo{}, err
	}
	info, err := f.disk.Stat(ctx, path)
	if b.Loaded {
		info.Size, info.IsDir = int64(len(b.content())), false
		return info, nil
	}
	return info, err
}

// Exists implements capabilities.FileIO; a loaded buffer exists.
func (f *FS) Exists(ctx context.Context, path string) (bool, error) {
	b, err := f.buffer(ctx, path)
	if err != nil {
		return false, err
	}
	if b.Loaded {
		return true, nil
	}
	return f.disk.Exists(ctx, path)
}

// MkdirAll implements capabilities.FileIO (directories are the disk's).
func (f *FS) MkdirAll(ctx context.Context, path string) error {
	return f.disk.MkdirAll(ctx, path)
}
