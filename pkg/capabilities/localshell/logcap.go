package localshell

import (
	"bytes"
	"fmt"
	"io"
)

// logSink is where a log's bytes go: the file, written in full up to
// the head limit (3/4 of the cap, ended at a line boundary); past it, the
// last 1/4 of the cap is kept in memory and written at the end after a
// marker saying how many bytes were dropped. A write error (full disk)
// stops the writing; finish then appends a marker saying the log is
// incomplete, making room for it by cutting the file when needed.
type logSink struct {
	f        logTarget
	headMax  int64
	head     int64 // bytes in the file
	headDone bool

	tail     []byte // ring of the last bytes, once headDone
	tailPos  int
	tailFull bool
	tailMax  int
	past     int64 // bytes offered after the head

	err error
}

// logTarget is the part of *os.File the sink needs.
type logTarget interface {
	io.Writer
	Truncate(size int64) error
	Seek(offset int64, whence int) (int64, error)
}

// incompleteReserve is how much of the file finish cuts off, when the
// disk is full, to write the incomplete marker and the last line.
const incompleteReserve = 4 << 10

func newLogSink(f logTarget, maxBytes int64) *logSink {
	tailMax := max(maxBytes/4, 1)
	return &logSink{f: f, headMax: maxBytes - tailMax, tailMax: int(tailMax)}
}

func (s *logSink) write(b []byte) {
	if !s.headDone {
		n := int64(len(b))
		if s.head+n > s.headMax {
			// End the head at the last line boundary that fits.
			n = int64(bytes.LastIndexByte(b[:s.headMax-s.head], '\n') + 1)
			s.headDone = true
		}
		s.writeFile(b[:n])
		b = b[n:]
	}
	if len(b) == 0 {
		return
	}
	s.past += int64(len(b))
	if s.tail == nil {
		s.tail = make([]byte, s.tailMax)
	}
	if len(b) >= s.tailMax {
		copy(s.tail, b[len(b)-s.tailMax:])
		s.tailPos, s.tailFull = 0, true
		return
	}
	for len(b) > 0 {
		n := copy(s.tail[s.tailPos:], b)
		b = b[n:]
		s.tailPos += n
		if s.tailPos == s.tailMax {
			s.tailPos, s.tailFull = 0, true
		}
	}
}

func (s *logSink) writeFile(b []byte) {
	if s.err != nil || len(b) == 0 {
		return
	}
	n, err := s.f.Write(b)
	s.head += int64(n)
	s.err = err
}

// finish writes the kept tail (after a "dropped" marker when bytes were
// dropped) and the last line. It returns the bytes dropped from the
// middle and the first write error; after a write error the file ends
// with a marker saying so (if even that cannot be written, the error
// says so too).
func (s *logSink) finish(last []byte) (dropped int64, err error) {
	if s.headDone {
		var tail []byte
		if s.tailFull {
			tail = append(append(make([]byte, 0, s.tailMax), s.tail[s.tailPos:]...), s.tail[:s.tailPos]...)
			// Start the kept tail at a line boundary.
			if i := bytes.IndexByte(tail, '\n'); i >= 0 && i+1 < len(tail) {
				tail = tail[i+1:]
			}
		} else {
			tail = s.tail[:s.tailPos]
		}
		dropped = s.past - int64(len(tail))
		if dropped > 0 {
			s.writeFile(fmt.Appendf(nil, "[magenta: %d bytes dropped here: the log is capped at %d bytes, its start and end are kept]\n", dropped, s.headMax+int64(s.tailMax)))
		}
		s.writeFile(tail)
	}
	s.writeFile(last)
	if s.err == nil {
		return dropped, nil
	}
	err = s.err
	marker := fmt.Appendf(nil, "\n[magenta: log incomplete: %v]\n", err)
	marker = append(marker, last...)
	if _, werr := s.f.Write(marker); werr == nil {
		return dropped, err
	}
	// The disk is full: give back the end of what was written.
	cut := max(s.head-incompleteReserve, 0)
	if s.f.Truncate(cut) == nil {
		if _, serr := s.f.Seek(cut, io.SeekStart); serr == nil {
			if _, werr := s.f.Write(marker); werr == nil {
				return dropped, err
			}
		}
	}
	return dropped, fmt.Errorf("%w (and the log carries no marker)", err)
}
