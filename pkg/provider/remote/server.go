package remote

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sync"

	"github.com/magenta-nvim/magenta/pkg/provider"
)

// Serve is the provider process: it answers the calls read from in with
// replies on out until in ends, building each Spec's adapter once with
// build. It returns when in has ended (io.EOF: nil) or cannot be read,
// after every stream it started has been cancelled and has returned.
// Diagnostics go to log (the host copies the process's stderr to its log).
func Serve(in io.Reader, out io.Writer, log io.Writer, build provider.AdapterFunc) error {
	s := &server{out: out, log: log, build: build, adapters: map[provider.Spec]provider.Provider{}, cancels: map[uint64]context.CancelFunc{}}
	s.send(reply{Hello: &hello{Protocol: Protocol, PID: os.Getpid()}})
	dec := json.NewDecoder(bufio.NewReaderSize(in, 64<<10))
	var err error
	for {
		var c call
		if derr := dec.Decode(&c); derr != nil {
			if !errors.Is(derr, io.EOF) {
				err = fmt.Errorf("reading a call: %w", derr)
			}
			break
		}
		s.handle(c)
	}
	s.mu.Lock()
	for _, cancel := range s.cancels {
		cancel()
	}
	s.mu.Unlock()
	s.streams.Wait()
	return err
}

type server struct {
	log   io.Writer
	build provider.AdapterFunc

	writeMu sync.Mutex
	out     io.Writer

	mu       sync.Mutex
	adapters map[provider.Spec]provider.Provider
	cancels  map[uint64]context.CancelFunc
	streams  sync.WaitGroup
}

func (s *server) handle(c call) {
	if c.Cancel {
		s.mu.Lock()
		if cancel := s.cancels[c.ID]; cancel != nil {
			cancel()
		}
		s.mu.Unlock()
		return
	}
	if c.Spec == nil || c.Request == nil {
		s.send(reply{ID: c.ID, Error: &wireError{Message: "the provider process got a call without spec or request"}})
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.mu.Lock()
	if old := s.cancels[c.ID]; old != nil {
		old() // a reused id: the host has given up on the old stream
	}
	s.cancels[c.ID] = cancel
	s.mu.Unlock()
	s.streams.Add(1)
	go func() {
		defer s.streams.Done()
		defer func() {
			cancel()
			s.mu.Lock()
			delete(s.cancels, c.ID)
			s.mu.Unlock()
		}()
		s.stream(ctx, c.ID, *c.Spec, *c.Request)
	}()
}

// stream runs one call and sends its events and its one final reply. A
// panic in an adapter ends this stream with an error, not the process.
func (s *server) stream(ctx context.Context, id uint64, spec provider.Spec, req provider.Request) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(s.log, "panic in a provider stream: %v\n%s", r, debug.Stack())
			s.send(reply{ID: id, Error: encodeError(&provider.Error{Kind: provider.ErrProtocol,
				Message: fmt.Sprintf("the provider adapter failed: %v", r)})})
		}
	}()
	adapter, err := s.adapter(spec)
	if err != nil {
		s.send(reply{ID: id, Error: encodeError(err)})
		return
	}
	resp, err := adapter.Stream(ctx, req, func(e provider.Event) {
		if w, ok := encodeEvent(e); ok {
			s.send(reply{ID: id, Event: w})
		}
	})
	if err != nil {
		s.send(reply{ID: id, Error: encodeError(err)})
		return
	}
	s.send(reply{ID: id, Response: resp})
}

// adapter returns the Spec's adapter, built on first use and kept, so
// its HTTP connections are reused from one request to the next.
func (s *server) adapter(spec provider.Spec) (provider.Provider, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a := s.adapters[spec]; a != nil {
		return a, nil
	}
	a, err := s.build(spec)
	if err != nil {
		return nil, err
	}
	s.adapters[spec] = a
	return a, nil
}

// send writes one reply as one line in one write, so replies of
// concurrent streams never interleave. A failed write means the host is
// gone; Serve ends when its stdin closes.
func (s *server) send(r reply) {
	b, err := encodeLine(r)
	if err != nil {
		b, _ = encodeLine(reply{ID: r.ID, Error: &wireError{Message: "the provider process could not encode a reply: " + err.Error()}})
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if _, err := s.out.Write(b); err != nil {
		fmt.Fprintf(s.log, "writing a reply: %v\n", err)
	}
}
