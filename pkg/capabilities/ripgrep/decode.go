package ripgrep

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// Decoding limits.
const (
	// MaxRecordBytes is the longest JSON record decoded; a longer one (a
	// matching line of many megabytes) is skipped and reported in Errors.
	MaxRecordBytes = 8 << 20
	// MaxLineBytes is the longest line Text kept; the middle of a longer
	// line is replaced by " … " so its start and end survive.
	MaxLineBytes = 16 << 10
	readBufBytes = 256 << 10
)

// textOrBytes is ripgrep's arbitrary data: UTF-8 text, or base64 bytes.
type textOrBytes struct {
	Text  *string `json:"text"`
	Bytes *string `json:"bytes"`
}

func (d *textOrBytes) String() string {
	switch {
	case d == nil:
		return ""
	case d.Text != nil:
		return *d.Text
	case d.Bytes != nil:
		b, err := base64.StdEncoding.DecodeString(*d.Bytes)
		if err != nil {
			return "\uFFFD"
		}
		return strings.ToValidUTF8(string(b), "\uFFFD")
	}
	return ""
}

// record is one line of `rg --json`; fields not needed are not decoded.
type record struct {
	Type string `json:"type"`
	Data struct {
		Path       *textOrBytes `json:"path"`
		Lines      *textOrBytes `json:"lines"`
		LineNumber int          `json:"line_number"`
	} `json:"data"`
}

// recordReader splits rg's output into lines, tolerating lines longer
// than its buffer up to limit.
type recordReader struct {
	br    *bufio.Reader
	big   []byte
	limit int
}

func newRecordReader(r io.Reader, limit int) *recordReader {
	return &recordReader{br: bufio.NewReaderSize(r, readBufBytes), limit: limit}
}

// next returns the next record (valid until the next call). A record
// longer than the limit comes back truncated to its start with long set.
func (r *recordReader) next() (rec []byte, long bool, err error) {
	line, err := r.br.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		if errors.Is(err, io.EOF) && len(line) > 0 {
			err = nil
		}
		return line, false, err
	}
	r.big = append(r.big[:0], line...)
	for errors.Is(err, bufio.ErrBufferFull) {
		line, err = r.br.ReadSlice('\n')
		if len(r.big)+len(line) > r.limit {
			long = true
		} else if !long {
			r.big = append(r.big, line...)
		}
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, false, err
	}
	return r.big, long, nil
}

// collector turns records into a SearchResult, keeping at most max
// matches (0: all) and the context lines that belong to kept matches.
type collector struct {
	res     *capabilities.SearchResult
	max     int
	context int
	prefix  string // removed from the front of paths

	path     string                    // file of the records being read
	file     int                       // its index in res.Files, -1 if none yet
	pending  []capabilities.SearchLine // context lines before a possible match
	lastKept int                       // line of the last kept match in file, 0 if none
	full     bool                      // max matches kept
	records  int                       // records decoded or skipped
}

func newCollector(res *capabilities.SearchResult, max, context int, prefix string) *collector {
	return &collector{res: res, max: max, context: context, prefix: prefix, file: -1}
}

// read consumes the stream until EOF, or until it knows there are more
// matches than it keeps; stopped reports the latter.
func (c *collector) read(r io.Reader) (stopped bool, err error) {
	rr := newRecordReader(r, MaxRecordBytes)
	for {
		rec, long, err := rr.next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return false, nil
			}
			return false, err
		}
		if len(bytes.TrimSpace(rec)) == 0 {
			continue
		}
		c.records++
		if long {
			if c.skipLong(rec) {
				return true, nil
			}
			continue
		}
		if c.handle(rec) {
			return true, nil
		}
	}
}

// quickType reads the record type from its first bytes without decoding
// (rg writes "type" first, except in summary records).
func quickType(rec []byte) string {
	const p = `{"type":"`
	if !bytes.HasPrefix(rec, []byte(p)) {
		return ""
	}
	rest := rec[len(p):]
	if i := bytes.IndexByte(rest, '"'); i > 0 && i < 16 {
		return string(rest[:i])
	}
	return ""
}

// handle takes one record; it returns true when reading can stop.
func (c *collector) handle(rec []byte) bool {
	if c.full {
		// Past the cap only two things matter: another match (the result
		// is truncated) and the after-context of the last kept match.
		switch quickType(rec) {
		case "match":
			c.res.Truncated = true
			return true
		case "begin", "end":
			c.endFile()
			return false
		case "context":
			if c.lastKept == 0 {
				return false
			}
		}
	}
	var r record
	if err := json.Unmarshal(rec, &r); err != nil {
		c.addError(fmt.Sprintf("rg: undecodable output: %v", err))
		return false
	}
	switch r.Type {
	case "begin", "end":
		c.endFile()
		if r.Type == "begin" {
			c.path = c.relPath(r.Data.Path.String())
		}
	case "context":
		c.sameFile(r.Data.Path)
		line := capabilities.SearchLine{Number: r.Data.LineNumber, Text: cleanLine(r.Data.Lines.String())}
		switch {
		case c.lastKept > 0 && line.Number <= c.lastKept+c.context:
			c.appendLine(line)
		case !c.full:
			c.pending = append(c.pending, line)
			if len(c.pending) > c.context {
				c.pending = c.pending[len(c.pending)-c.context:]
			}
		}
	case "match":
		if c.full {
			c.res.Truncated = true
			return true
		}
		c.sameFile(r.Data.Path)
		for _, l := range c.pending {
			c.appendLine(l)
		}
		c.pending = c.pending[:0]
		c.appendLine(capabilities.SearchLine{Number: r.Data.LineNumber, Text: cleanLine(r.Data.Lines.String()), Match: true})
		c.res.Files[c.file].Matches++
		c.res.Matches++
		c.lastKept = r.Data.LineNumber
		c.full = c.max > 0 && c.res.Matches >= c.max
	}
	return false
}

// skipLong handles a record too long to decode: a match within the cap
// is reported as an error (without its line), one past it truncates.
func (c *collector) skipLong(prefix []byte) bool {
	switch quickType(prefix) {
	case "match":
		if c.full {
			c.res.Truncated = true
			return true
		}
		c.addError(fmt.Sprintf("%s: a matching line longer than %d bytes was skipped", c.path, MaxRecordBytes))
	case "context":
		c.addError(fmt.Sprintf("%s: a context line longer than %d bytes was skipped", c.path, MaxRecordBytes))
	default:
		c.addError(fmt.Sprintf("rg: skipped an output record longer than %d bytes", MaxRecordBytes))
	}
	return false
}

// sameFile starts a new file when a record's path is not the current
// one (rg always sends begin first; this keeps a stray record sane).
func (c *collector) sameFile(p *textOrBytes) {
	if p == nil {
		return
	}
	if rel := c.relPath(p.String()); rel != c.path {
		c.endFile()
		c.path = rel
	}
}

func (c *collector) endFile() {
	c.file, c.lastKept, c.pending = -1, 0, c.pending[:0]
}

func (c *collector) appendLine(l capabilities.SearchLine) {
	if c.file < 0 {
		c.res.Files = append(c.res.Files, capabilities.SearchFile{Path: c.path})
		c.file = len(c.res.Files) - 1
	}
	f := &c.res.Files[c.file]
	f.Lines = append(f.Lines, l)
}

func (c *collector) relPath(p string) string {
	if c.prefix != "" {
		if rel, ok := strings.CutPrefix(p, c.prefix); ok && rel != "" {
			return rel
		}
	}
	return p
}

func (c *collector) addError(msg string) {
	if len(c.res.Errors) < MaxErrors {
		c.res.Errors = append(c.res.Errors, msg)
	}
}

// cleanLine strips the line terminator, replaces NUL (a binary file
// searched by name) with U+FFFD, and cuts the middle of an overlong line.
func cleanLine(s string) string {
	s = strings.TrimSuffix(s, "\n")
	s = strings.TrimSuffix(s, "\r")
	if strings.IndexByte(s, 0) >= 0 {
		s = strings.ReplaceAll(s, "\x00", "\uFFFD")
	}
	if len(s) <= MaxLineBytes {
		return s
	}
	head, tail := MaxLineBytes/2, len(s)-MaxLineBytes/2
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	for tail < len(s) && !utf8.RuneStart(s[tail]) {
		tail++
	}
	return s[:head] + " … " + s[tail:]
}
