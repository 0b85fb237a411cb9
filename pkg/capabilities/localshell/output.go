package localshell

import (
	"bytes"
	"encoding/binary"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

const (
	readSize = 64 << 10
	// sniffBytes is how much of a stream's start is examined for binary
	// content; sniffMin is how much must be seen before the ratio counts
	// (a NUL counts at once).
	sniffBytes = 4 << 10
	sniffMin   = 256
	// logFlushEvery bounds how long a log line waits in the buffer.
	logFlushEvery = time.Second
)

var bufPool = sync.Pool{New: func() any { b := make([]byte, readSize); return &b }}

// chunk is one read from a pipe; buf is nil at end of stream.
type chunk struct {
	stream capabilities.Stream
	buf    *[]byte
	n      int
}

// readPipe sends what f yields to out until EOF or an error (such as the
// read deadline set when draining is cut short), then a nil chunk.
func readPipe(f *os.File, s capabilities.Stream, out chan<- chunk) {
	for {
		bp := bufPool.Get().(*[]byte)
		n, err := f.Read(*bp)
		if n > 0 {
			out <- chunk{stream: s, buf: bp, n: n}
		} else {
			bufPool.Put(bp)
		}
		if err != nil {
			out <- chunk{stream: s}
			return
		}
	}
}

// streamState is the line assembly state of one pipe.
type streamState struct {
	stream capabilities.Stream
	prefix string // "stdout: " / "stderr: " in the log
	// prefixWord is prefix as a little-endian word (it is 8 bytes).
	prefixWord uint64
	bytes      int64

	sniffed, bad int
	binary       bool

	pending []byte // start of the current line (raw, < rawLimit)
	// Long-line mode: the line outgrew rawLimit; keep its raw ends only.
	long     bool
	longHead []byte
	ring     []byte // last rawKeep bytes, circular from ringPos when full
	ringPos  int
	ringFull bool
	longLen  int64
}

type tailLine struct {
	stream capabilities.Stream
	text   []byte
}

// processor turns the chunks of both pipes into lines, in arrival order.
// It runs on one goroutine, so it needs no locks and calls onOutput with
// none held.
type processor struct {
	log      *logFile
	onOutput func(capabilities.OutputLine)
	onTail   func([]capabilities.OutputLine, int)
	tailSent int // p.total when onTail was last called
	streams  [2]streamState

	total int
	head  []capabilities.OutputLine
	tail  [capabilities.ShellTailLines]tailLine
	tailN int // lines written to tail, ever
}

func newProcessor(log *logFile, onOutput func(capabilities.OutputLine), onTail func([]capabilities.OutputLine, int)) *processor {
	p := &processor{log: log, onOutput: onOutput, onTail: onTail}
	for _, s := range []capabilities.Stream{capabilities.Stdout, capabilities.Stderr} {
		prefix := s.String() + ": "
		p.streams[s] = streamState{stream: s, prefix: prefix,
			prefixWord: binary.LittleEndian.Uint64([]byte(prefix))}
	}
	return p
}

// run consumes chunks until both streams have ended. A log buffer that
// has waited logFlushEvery is written out, so the log of a slow command
// can be followed while it runs.
//
// OnTail hears of new lines on its own ticker, from what the processor
// retains anyway, so a live view leaves the per-line fast path intact.
func (p *processor) run(in <-chan chunk) {
	tick := time.NewTicker(logFlushEvery)
	defer tick.Stop()
	var tailTick <-chan time.Time
	if p.onTail != nil {
		t := time.NewTicker(capabilities.LiveTailInterval)
		defer t.Stop()
		tailTick = t.C
	}
	for open := 2; open > 0; {
		var c chunk
		select {
		case c = <-in:
		case <-tick.C:
			p.log.flush()
			continue
		case <-tailTick:
			p.sendTail()
			continue
		}
		st := &p.streams[c.stream]
		if c.buf == nil {
			p.finish(st)
			open--
			if open == 0 {
				p.sendTail()
			}
			continue
		}
		p.feed(st, (*c.buf)[:c.n])
		if cap(*c.buf) == readSize { // not a terminal's text chunk
			bufPool.Put(c.buf)
		}
	}
}

func (p *processor) feed(st *streamState, data []byte) {
	st.bytes += int64(len(data))
	if st.binary {
		return
	}
	if st.sniffed < sniffBytes {
		look := data[:min(len(data), sniffBytes-st.sniffed)]
		bad, nul := sniff(look)
		st.sniffed += len(look)
		st.bad += bad
		if nul || (st.sniffed >= sniffMin && st.bad*10 > st.sniffed*3) {
			st.binary = true
			st.pending, st.long = st.pending[:0], false
			p.log.buf = append(p.log.buf, st.prefix+"[binary output: not logged]\n"...)
			return
		}
	}
	clean := plain(data)
	if clean && p.onOutput == nil {
		if st.long || len(st.pending) > 0 {
			// Finish the line the previous chunk started.
			i := bytes.IndexByte(data, '\n')
			if i < 0 {
				p.appendPartial(st, data)
				return
			}
			p.appendPartial(st, data[:i])
			p.endLine(st)
			data = data[i+1:]
		}
		data = p.feedPlain(st, data)
	}
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			p.appendPartial(st, data)
			return
		}
		line := data[:i]
		data = data[i+1:]
		if st.long || len(st.pending) > 0 {
			p.appendPartial(st, line)
			p.endLine(st)
		} else if clean {
			p.emitPlain(st, line)
		} else {
			p.emitRaw(st, line)
		}
	}
}

// appendPartial adds b to the current unfinished line.
func (p *processor) appendPartial(st *streamState, b []byte) {
	if !st.long {
		if len(st.pending)+len(b) <= rawLimit {
			st.pending = append(st.pending, b...)
			return
		}
		st.long = true
		st.longHead, st.ringPos, st.ringFull, st.longLen = st.longHead[:0], 0, false, 0
		if st.ring == nil {
			st.ring = make([]byte, rawKeep)
		}
		p.appendLong(st, st.pending)
		st.pending = st.pending[:0]
	}
	p.appendLong(st, b)
}

func (p *processor) appendLong(st *streamState, b []byte) {
	st.longLen += int64(len(b))
	if n := rawKeep - len(st.longHead); n > 0 {
		n = min(n, len(b))
		st.longHead = append(st.longHead, b[:n]...)
		b = b[n:]
	}
	if len(b) >= rawKeep {
		copy(st.ring, b[len(b)-rawKeep:])
		st.ringPos, st.ringFull = 0, true
		return
	}
	for len(b) > 0 {
		n := copy(st.ring[st.ringPos:], b)
		b = b[n:]
		st.ringPos += n
		if st.ringPos == rawKeep {
			st.ringPos, st.ringFull = 0, true
		}
	}
}

// endLine emits the buffered line of st.
func (p *processor) endLine(st *streamState) {
	if !st.long {
		line := st.pending
		st.pending = st.pending[:0]
		p.emitRaw(st, line)
		return
	}
	st.long = false
	var tail []byte
	if st.ringFull {
		tail = append(append(make([]byte, 0, rawKeep), st.ring[st.ringPos:]...), st.ring[:st.ringPos]...)
	} else {
		tail = st.ring[:st.ringPos]
	}
	total := st.longLen
	if n := len(tail); n > 0 && tail[n-1] == '\r' {
		tail, total = tail[:n-1], total-1
	}
	text := joinLong(st.longHead, tail, total)
	p.emit(st, []byte(text), text)
}

// finish ends a stream: a last line without newline still counts.
func (p *processor) finish(st *streamState) {
	if st.binary {
		p.log.buf = append(p.log.buf, st.prefix+"[binary output: "+strconv.FormatInt(st.bytes, 10)+" bytes]\n"...)
		return
	}
	if st.long || len(st.pending) > 0 {
		p.endLine(st)
	}
}

// emitPlain emits a line known to be ASCII without ESC or CR.
func (p *processor) emitPlain(st *streamState, line []byte) {
	if len(line) > maxLine {
		s := cutMiddle(string(line))
		p.emit(st, []byte(s), s)
		return
	}
	p.emit(st, line, "")
}

// emitRaw cleans and emits one complete raw line.
func (p *processor) emitRaw(st *streamState, line []byte) {
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	if plain(line) {
		p.emitPlain(st, line)
		return
	}
	s := cutMiddle(cleanLine(line))
	p.emit(st, []byte(s), s)
}

// emit records one cleaned line; s is its string form when already made.
func (p *processor) emit(st *streamState, text []byte, s string) {
	p.total++
	if len(p.log.buf) > logBufSize-maxLine-64 {
		p.log.flush()
	}
	p.log.buf = append(append(append(p.log.buf, st.prefix...), text...), '\n')
	if p.total <= capabilities.ShellHeadLines {
		if s == "" {
			s = string(text)
		}
		p.head = append(p.head, capabilities.OutputLine{Stream: st.stream, Text: s})
	} else {
		t := &p.tail[p.tailN%len(p.tail)]
		t.stream = st.stream
		t.text = append(t.text[:0], text...)
		p.tailN++
	}
	if p.onOutput != nil {
		if s == "" && len(text) > 0 {
			s = string(text)
		}
		p.onOutput(capabilities.OutputLine{Stream: st.stream, Text: s})
	}
}

// sendTail gives onTail the latest lines when there are new ones.
func (p *processor) sendTail() {
	if p.onTail == nil || p.total == p.tailSent {
		return
	}
	p.tailSent = p.total
	p.onTail(p.latest(capabilities.ShellTailLines), p.total)
}

// latest returns up to n of the last lines: the end of the head, then the
// tail ring (which holds only lines after the head).
func (p *processor) latest(n int) []capabilities.OutputLine {
	fromTail := min(n, p.tailN, len(p.tail))
	fromHead := min(n-fromTail, len(p.head))
	out := make([]capabilities.OutputLine, 0, fromHead+fromTail)
	out = append(out, p.head[len(p.head)-fromHead:]...)
	for i := p.tailN - fromTail; i < p.tailN; i++ {
		t := &p.tail[i%len(p.tail)]
		out = append(out, capabilities.OutputLine{Stream: t.stream, Text: string(t.text)})
	}
	return out
}

// fill copies what the processor kept into r.
func (p *processor) fill(r *capabilities.ExecResult) {
	r.TotalLines = p.total
	r.Head = p.head
	n := min(p.tailN, len(p.tail))
	if n > 0 {
		r.Tail = make([]capabilities.OutputLine, 0, n)
	}
	for i := p.tailN - n; i < p.tailN; i++ {
		t := &p.tail[i%len(p.tail)]
		r.Tail = append(r.Tail, capabilities.OutputLine{Stream: t.stream, Text: string(t.text)})
	}
	for i := range p.streams {
		if st := &p.streams[i]; st.binary {
			r.Binary = true
			r.BinaryBytes += st.bytes
		}
	}
}
