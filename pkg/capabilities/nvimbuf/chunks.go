package nvimbuf

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
)

const (
	// OpenWholeMax is the largest buffer Open reads in one call.
	OpenWholeMax = 1 << 20
	// OpenChunkLines is how many lines each further call of a streamed
	// buffer brings.
	OpenChunkLines = 4096
)

// ErrBufferChanged is the error of a streamed read of a buffer that
// changed (the user typed, a reload) before the reader reached its end.
var ErrBufferChanged = errors.New("the buffer changed while it was being read; read it again")

// chunkReader streams a loaded buffer's text in pieces of lines, each
// fetched only when the caller has read the previous one, all from the
// changedtick Open saw.
type chunkReader struct {
	ctx  context.Context
	f    *FS
	path string
	tick int64
	next int // first line of the next piece
	buf  []byte
	done bool
	err  error
}

// linesResult is what magenta.files.read_lines returns.
type linesResult struct {
	Loaded  bool     `msgpack:"loaded"`
	Changed bool     `msgpack:"changed"`
	Lines   []string `msgpack:"lines"`
	Count   int      `msgpack:"count"`
	EOL     bool     `msgpack:"eol"`
	DOS     bool     `msgpack:"dos"`
}

func (r *chunkReader) Read(p []byte) (int, error) {
	for len(r.buf) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		if r.done {
			return 0, io.EOF
		}
		r.err = r.fill()
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}

// fill fetches the next piece and turns it into file bytes: each line
// followed by the line separator, but the buffer's last line only when
// it has an end of line.
func (r *chunkReader) fill() error {
	if err := r.ctx.Err(); err != nil {
		return err
	}
	var res linesResult
	if err := r.f.nv.ExecLua(`return require('magenta.files').read_lines(...)`, &res, r.path, r.next, r.next+OpenChunkLines, r.tick); err != nil {
		return fmt.Errorf("read buffer %s: %w", r.path, err)
	}
	switch {
	case !res.Loaded:
		return fmt.Errorf("read buffer %s: it was unloaded while it was being read", r.path)
	case res.Changed:
		return fmt.Errorf("read buffer %s: %w", r.path, ErrBufferChanged)
	}
	sep := "\n"
	if res.DOS {
		sep = "\r\n"
	}
	var b strings.Builder
	for i, line := range res.Lines {
		b.WriteString(line)
		if r.next+i+1 < res.Count || res.EOL {
			b.WriteString(sep)
		}
	}
	r.next += len(res.Lines)
	r.done = r.next >= res.Count || len(res.Lines) == 0
	r.buf = []byte(b.String())
	return nil
}

func (r *chunkReader) Close() error { return nil }
