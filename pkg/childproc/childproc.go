package childproc

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// AwaitGreeting decodes the process's first message into greeting and
// returns check's verdict on it, or why none came: the stream ended,
// timeout passed, or ctx ended. On an error the caller kills the process.
func AwaitGreeting(ctx context.Context, dec *json.Decoder, timeout time.Duration, greeting any, check func() error) error {
	greeted := make(chan error, 1)
	go func() {
		if err := dec.Decode(greeting); err != nil {
			greeted <- fmt.Errorf("it ended before greeting (%v)", err)
			return
		}
		greeted <- check()
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case err := <-greeted:
		return err
	case <-timer.C:
		return fmt.Errorf("it did not greet within %s", timeout)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// StderrLog is a process's stderr: each line goes to the log, prefixed
// with Name, and the last ones are kept for Tail.
type StderrLog struct {
	Name string

	mu   sync.Mutex
	line []byte
	last []string
}

// stderrKeep is how many lines Tail gives; maxLine bounds one line.
const (
	stderrKeep = 5
	maxLine    = 4096
)

func (s *StderrLog) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range b {
		if c != '\n' {
			if len(s.line) < maxLine {
				s.line = append(s.line, c)
			}
			continue
		}
		line := string(s.line)
		s.line = s.line[:0]
		slog.Warn(s.Name + ": " + line)
		s.last = append(s.last, line)
		if len(s.last) > stderrKeep {
			s.last = s.last[1:]
		}
	}
	return len(b), nil
}

// Tail is the last lines the process printed, as a suffix of an error
// ("; it said:" and the lines), or "" when it printed nothing.
func (s *StderrLog) Tail() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	lines := s.last
	if len(s.line) > 0 {
		lines = append(lines[:len(lines):len(lines)], string(s.line))
	}
	if len(lines) == 0 {
		return ""
	}
	out := "; it said:"
	for _, l := range lines {
		out += "\n  " + l
	}
	return out
}

// Beside is the file name in the directory of the running executable:
// where `make` puts the host's helper programs (bin/ of the checkout). If
// the executable cannot be found, it is name alone (looked up in PATH).
func Beside(name string) string {
	exe, err := os.Executable()
	if err != nil {
		return name
	}
	return filepath.Join(filepath.Dir(exe), name)
}
