package localshell

import (
	"fmt"
	"os"
	"strings"

	"github.com/magenta-nvim/magenta/pkg/capabilities/toolfiles"
)

// logPath returns <root>/threads/<thread>/tools/<request>/bashCommand.log
// and checks that it stays under root.
func logPath(root, threadID, requestID string) (string, error) {
	return toolfiles.Path(root, threadID, requestID, "bashCommand.log")
}

// logBufSize is the size of the log's write buffers: 256 KB measured
// best for `seq 1 2000000` (64 KB costs ~4 more flush handoffs per MB,
// 1 MB falls out of cache).
const logBufSize = 256 << 10

// logFile is the buffered log of one run. The processor appends to buf
// directly (cheaper per line than bufio's methods) and calls flush when
// fewer than maxLine bytes are left. Flushed buffers are written by a
// goroutine started at the first flush, so disk writes overlap with
// reading and cleaning; small logs are written once, at close.
type logFile struct {
	f    *os.File
	sink *logSink
	buf  []byte

	full, free chan []byte // nil until the first flush
	done       chan struct{}
}

func newLogFile(f *os.File, maxBytes int64) *logFile {
	return &logFile{f: f, sink: newLogSink(f, maxBytes), buf: make([]byte, 0, logBufSize)}
}

// flush hands the buffer to the writer goroutine and takes an empty one.
func (l *logFile) flush() {
	if len(l.buf) == 0 {
		return
	}
	if l.full == nil {
		l.full, l.free, l.done = make(chan []byte, 2), make(chan []byte, 3), make(chan struct{})
		l.free <- make([]byte, 0, logBufSize)
		l.free <- make([]byte, 0, logBufSize)
		go l.write()
	}
	l.full <- l.buf
	l.buf = <-l.free
}

func (l *logFile) write() {
	defer close(l.done)
	for b := range l.full {
		l.sink.write(b)
		l.free <- b[:0]
	}
}

// openLog creates the log (directories 0700, file 0600, not following a
// symlink at the file itself) and writes the command line.
func openLog(path, command string, maxBytes int64) (*logFile, error) {
	f, err := toolfiles.Create(path)
	if err != nil {
		return nil, fmt.Errorf("bash log: %w", err)
	}
	l := newLogFile(f, maxBytes)
	l.buf = append(l.buf, "$ "+strings.ReplaceAll(command, "\n", "\n> ")+"\n"...)
	return l, nil
}

// logSummary is what became of a log.
type logSummary struct {
	// size is the file's length; dropped the bytes left out of its
	// middle by the cap.
	size, dropped int64
	// err is the first write or close error: the log is incomplete.
	err error
}

// close writes the last line, flushes and closes.
func (l *logFile) close(last string) logSummary {
	if l.full != nil {
		l.full <- l.buf
		close(l.full)
		<-l.done
	} else {
		l.sink.write(l.buf)
	}
	var sum logSummary
	sum.dropped, sum.err = l.sink.finish([]byte(last + "\n"))
	sum.size = l.sink.head
	if cerr := l.f.Close(); sum.err == nil {
		sum.err = cerr
	}
	return sum
}
