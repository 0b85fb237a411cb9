package remoteagent

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// Version is the protocol the agent speaks, sent in its hello; a host
// that expects another one does not use it.
const Version = "magenta-agent 1"

// CallMarker is the variable that tags every process of one command
// (its value is the command's random marker): a sweep ends each process
// whose /proc/<pid>/environ carries it, which reaches what left the
// process group with setsid. Package posixremote's wrapper uses the same.
const CallMarker = "MAGENTA_CALL"

// maxGrace bounds Request.GraceMillis; DefaultGrace is used when it is
// not set.
const (
	maxGrace     = 10 * time.Second
	DefaultGrace = 200 * time.Millisecond
)

// AgentFlag is the argument that makes magenta-supervisor an agent.
const AgentFlag = "--remote-agent"

// Frame kinds.
const (
	kindHello  byte = 'H' // agent → host, id 0: Version
	kindStart  byte = 'S' // host → agent: a JSON Request
	kindSignal byte = 'G' // host → agent: one byte, the signal number
	kindStdout byte = 'O' // agent → host: output
	kindStderr byte = 'E' // agent → host: output
	kindExit   byte = 'X' // agent → host: 4 bytes, the raw wait status
)

const (
	headerLen = 9
	// maxPayload bounds one frame: output is sent in reads of at most
	// readSize, a Request is a command line and an environment.
	maxPayload = 4 << 20
	readSize   = 32 << 10
)

// errFrame is a stream that is not frames.
var errFrame = errors.New("remote agent: malformed frame")

// Request is one command to start.
type Request struct {
	// Argv is the program and its arguments (the program is looked up
	// in the agent's PATH).
	Argv []string `json:"argv"`
	// Dir is the directory to run it in.
	Dir string `json:"dir"`
	// Env are NAME=value entries set on top of the agent's environment.
	Env []string `json:"env,omitempty"`
	// Unset are names removed from the agent's environment.
	Unset []string `json:"unset,omitempty"`
	// Marker tags every process of the command (CallMarker=Marker in its
	// environment): the sweep finds them by it.
	Marker string `json:"marker"`
	// NoDirExit and NoDirMessage are how a Dir that cannot be entered is
	// reported: NoDirMessage (with the directory appended) on stderr and
	// NoDirExit as the exit status, so the caller tells it from the
	// command's own failure as it does without the agent.
	NoDirExit    int    `json:"nodir_exit,omitempty"`
	NoDirMessage string `json:"nodir_message,omitempty"`
	// GraceMillis is how long the command's processes have between
	// SIGTERM and SIGKILL when the agent ends them (the host's
	// capabilities.ShellTerminateGrace; this package does not import it
	// to keep magenta-supervisor small); 0 means DefaultGrace.
	GraceMillis int `json:"grace_ms,omitempty"`
}

// grace is GraceMillis, defaulted and bounded.
func (r Request) grace() time.Duration {
	g := time.Duration(r.GraceMillis) * time.Millisecond
	switch {
	case g <= 0:
		return DefaultGrace
	case g > maxGrace:
		return maxGrace
	}
	return g
}

// frame is one decoded frame; payload is only valid until the next read.
type frame struct {
	kind    byte
	id      uint32
	payload []byte
}

// frameReader reads frames, reusing one buffer.
type frameReader struct {
	r   io.Reader
	hdr [headerLen]byte
	buf []byte
}

func (fr *frameReader) next() (frame, error) {
	if _, err := io.ReadFull(fr.r, fr.hdr[:]); err != nil {
		return frame{}, err
	}
	n := binary.BigEndian.Uint32(fr.hdr[5:])
	if n > maxPayload {
		return frame{}, fmt.Errorf("%w: %d-byte payload", errFrame, n)
	}
	if cap(fr.buf) < int(n) {
		fr.buf = make([]byte, n)
	}
	p := fr.buf[:n]
	if _, err := io.ReadFull(fr.r, p); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return frame{}, err
	}
	return frame{kind: fr.hdr[0], id: binary.BigEndian.Uint32(fr.hdr[1:5]), payload: p}, nil
}

// frameWriter writes whole frames, one at a time, from any goroutine.
type frameWriter struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte
}

func (fw *frameWriter) send(kind byte, id uint32, payload []byte) error {
	if len(payload) > maxPayload {
		return fmt.Errorf("remote agent: a %d-byte frame is over the limit", len(payload))
	}
	fw.mu.Lock()
	defer fw.mu.Unlock()
	// One write per frame: a pipe or channel never interleaves it with
	// another goroutine's.
	fw.buf = append(fw.buf[:0], kind, 0, 0, 0, 0, 0, 0, 0, 0)
	binary.BigEndian.PutUint32(fw.buf[1:5], id)
	binary.BigEndian.PutUint32(fw.buf[5:9], uint32(len(payload)))
	fw.buf = append(fw.buf, payload...)
	_, err := fw.w.Write(fw.buf)
	return err
}
