package localshell

import (
	"bytes"
	"encoding/binary"
	"math/bits"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// feedPlain is the fast path for a chunk known to be plain ASCII with no
// partial line before it and no OnOutput: past the head, only the last
// tail-many lines of the chunk are copied for retention. It returns what
// follows the last newline, or the rest from a line too long for it.
func (p *processor) feedPlain(st *streamState, data []byte) []byte {
	const slack = 16 // room for the word-wise copy of short lines
	off := 0
	for p.total < capabilities.ShellHeadLines {
		i := indexNL(data[off:])
		if i < 0 || i > maxLine {
			return data[off:]
		}
		p.emit(st, data[off:off+i], "")
		off += i + 1
	}
	// The hot loop: locals only. Each line is appended to the log buffer
	// as "<prefix><line>\n" in place; a line of up to 16 bytes is moved as
	// two words (the buffer keeps slack for the overshoot).
	log, pw := p.log, st.prefixWord
	buf, n := log.buf[:cap(log.buf)], len(log.buf)
	tailFrom, count := off, 0
	for {
		rest := data[off:]
		i := -1
		if len(rest) >= 8 {
			x := binary.LittleEndian.Uint64(rest) ^ nlWord
			if t := (x - onesWord) &^ x & highWord; t != 0 {
				i = bits.TrailingZeros64(t) / 8
			}
		}
		if i < 0 {
			if i = indexNL(rest); i < 0 || i > maxLine {
				break
			}
		}
		if len(buf)-n < 8+i+1+slack {
			log.buf = buf[:n]
			log.flush() // swaps in another buffer
			buf, n = log.buf[:cap(log.buf)], 0
		}
		binary.LittleEndian.PutUint64(buf[n:], pw)
		if i <= 16 && len(rest) >= 16 {
			binary.LittleEndian.PutUint64(buf[n+8:], binary.LittleEndian.Uint64(rest))
			binary.LittleEndian.PutUint64(buf[n+16:], binary.LittleEndian.Uint64(rest[8:]))
		} else {
			copy(buf[n+8:], rest[:i])
		}
		buf[n+8+i] = '\n'
		n += 9 + i
		off += i + 1
		count++
	}
	log.buf = buf[:n]
	p.total += count
	if count > 0 {
		p.keepTail(st, data[tailFrom:off])
	}
	return data[off:]
}

// keepTail files the newline-terminated lines of b, already counted and
// logged, in the tail ring. Tail slots depend only on the running count,
// so only the lines that no later line of b overwrites are copied.
func (p *processor) keepTail(st *streamState, b []byte) {
	const nTail = capabilities.ShellTailLines
	var ends [nTail + 1]int
	k, end := 0, len(b)-1 // b[end] is the last newline
	for ; k <= nTail && end >= 0; k++ {
		ends[k] = end
		end = bytes.LastIndexByte(b[:end], '\n')
	}
	// ends[0..k-1] are the newlines of the last k lines, newest first.
	start := 0
	if k == nTail+1 {
		k, start = nTail, ends[nTail]+1
	}
	p.tailN += bytes.Count(b[:start], []byte{'\n'})
	for j := k - 1; j >= 0; j-- {
		t := &p.tail[p.tailN%len(p.tail)]
		t.stream = st.stream
		t.text = append(t.text[:0], b[start:ends[j]]...)
		p.tailN++
		start = ends[j] + 1
	}
}

// Words for finding a newline byte in a uint64 ("has zero byte" test on
// x ^ nlWord; the lowest flagged byte is exact).
const (
	onesWord = 0x0101010101010101
	highWord = 0x8080808080808080
	nlWord   = 0x0a0a0a0a0a0a0a0a
	// spaceWord, tabWord and vtWord serve plain's control-byte test.
	spaceWord = 0x2020202020202020
	tabWord   = 0x0909090909090909
	vtWord    = 0x0b0b0b0b0b0b0b0b
)

// indexNL is bytes.IndexByte(b, '\n') tuned for short lines: it tests
// eight bytes at a time in registers before handing long runs to the
// vectorised search, whose set-up costs more than a short line.
func indexNL(b []byte) int {
	i := 0
	for ; i+8 <= len(b) && i < 64; i += 8 {
		x := binary.LittleEndian.Uint64(b[i:]) ^ nlWord
		if t := (x - onesWord) &^ x & highWord; t != 0 {
			return i + bits.TrailingZeros64(t)/8
		}
	}
	if i == 64 {
		if j := bytes.IndexByte(b[i:], '\n'); j >= 0 {
			return i + j
		}
		return -1
	}
	for ; i < len(b); i++ {
		if b[i] == '\n' {
			return i
		}
	}
	return -1
}
