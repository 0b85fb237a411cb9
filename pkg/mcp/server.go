package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/magenta-nvim/magenta/pkg/mcp/mcpwire"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// startTimeout bounds connecting to a server and listing its tools.
const startTimeout = 30 * time.Second

type server struct {
	cfg ServerConfig
	m   *Manager

	mu       sync.Mutex
	state    State
	session  *remoteSession // in the gateway
	tools    []tools.Tool
	warnings []string
	lastErr  string
	failures int
	retryAt  time.Time
	// startedOnce: the first start ended (ready or failed); see
	// Manager.Starting.
	startedOnce bool
	// retired: the server left the configuration (the project file
	// changed); it never starts again.
	retired bool
}

// retire stops the server for good.
func (s *server) retire() {
	s.mu.Lock()
	s.retired = true
	s.mu.Unlock()
	s.stop()
}

// need returns the ready tools and starts the server when it is idle or
// its restart delay has passed.
func (s *server) need() []tools.Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.retired {
		return nil
	}
	switch s.state {
	case StateReady:
		return s.tools
	case StateIdle, "":
	case StateFailed:
		if time.Now().Before(s.retryAt) {
			return nil
		}
	default:
		return nil
	}
	if s.m.spawn(s.start) {
		s.state = StateStarting
	}
	return nil
}

func (s *server) start() {
	defer s.m.changed()
	s.m.changed()
	if v := s.m.opts.Verify; v != nil && s.cfg.source() == SourceProject {
		if err := v(s.cfg); err != nil {
			s.fail(err)
			return
		}
	}
	conn, err := s.cfg.connect(s.m.opts.Version)
	if err != nil {
		s.fail(err)
		return
	}
	ctx, cancel := context.WithTimeout(s.m.ctx, startTimeout)
	defer cancel()
	session, err := s.m.gateway.connect(ctx, conn, func() { s.m.spawn(s.refresh) })
	if err != nil {
		s.fail(err)
		return
	}
	s.mu.Lock()
	s.session = session
	retired := s.retired
	s.mu.Unlock()
	if s.m.ctx.Err() != nil || retired { // the host closed (or the file changed) while it started
		s.stop()
		return
	}
	if err := s.list(ctx, session); err != nil {
		session.close()
		s.fail(fmt.Errorf("tools/list: %w", err))
		return
	}
	if !s.m.spawn(func() { s.watch(session) }) {
		s.stop() // the host closed meanwhile
	}
}

// watch notices the server ending (a crash) so the next need restarts it.
// The gateway's message says why, with the server's stderr.
func (s *server) watch(session *remoteSession) {
	err := session.wait()
	s.mu.Lock()
	current := s.session == session
	s.mu.Unlock()
	if !current || s.m.ctx.Err() != nil {
		return
	}
	session.close()
	s.fail(err)
	s.m.changed()
}

// list fetches the tools and makes the server ready.
func (s *server) list(ctx context.Context, session *remoteSession) error {
	var ts []tools.Tool
	var warnings []string
	listed, err := session.tools(ctx)
	if err != nil {
		return err
	}
	for _, t := range listed {
		tool, err := newTool(s, t)
		if err != nil {
			warnings = append(warnings, err.Error())
			slog.Warn("mcp: tool skipped", "server", s.cfg.Name, "err", err)
			continue
		}
		ts = append(ts, tool)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.session != session {
		return nil
	}
	s.tools, s.warnings, s.state, s.failures, s.lastErr = ts, warnings, StateReady, 0, ""
	s.startedOnce = true
	return nil
}

// refresh lists the tools again after notifications/tools/list_changed.
func (s *server) refresh() {
	s.mu.Lock()
	session := s.session
	s.mu.Unlock()
	if session == nil {
		return
	}
	ctx, cancel := context.WithTimeout(s.m.ctx, startTimeout)
	defer cancel()
	if err := s.list(ctx, session); err != nil {
		slog.Warn("mcp: tools/list after list_changed", "server", s.cfg.Name, "err", err)
	}
	s.m.changed()
}

func (s *server) fail(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures++
	s.state, s.lastErr, s.tools = StateFailed, err.Error(), nil
	s.startedOnce = true
	s.session = nil
	s.retryAt = time.Now().Add(restartDelay(s.failures))
	slog.Warn("mcp: server failed", "server", s.cfg.Name, "err", err)
	if f := s.m.opts.OnFailure; f != nil && s.m.ctx.Err() == nil {
		go f(s.cfg.Name, err) // not under s.mu: it may ask for the status
	}
}

// broken is called when a call found the connection dead; the message
// gets the server's stderr, read as the gateway stops it.
func (s *server) broken(session *remoteSession, err error) {
	s.mu.Lock()
	current := s.session == session
	s.mu.Unlock()
	if !current {
		return
	}
	stderr := session.close()
	s.fail(errors.New(mcpwire.Explain(err.Error(), stderr)))
	s.m.changed()
}

// stop closes the session: the gateway kills a stdio server's process
// group first (closing alone would wait for it to exit on its own).
func (s *server) stop() {
	s.mu.Lock()
	session := s.session
	s.session, s.tools, s.state = nil, nil, StateStopped
	s.mu.Unlock()
	if session != nil {
		session.close()
	}
}

func (s *server) status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Status{Name: s.cfg.Name, Source: s.cfg.source(), State: s.state, LastError: s.lastErr, Warnings: append([]string{}, s.warnings...), Tools: []string{}, Transport: s.cfg.transportName()}
	if st.State == "" {
		st.State = StateIdle
	}
	for _, t := range s.tools {
		st.Tools = append(st.Tools, t.Spec().Name)
	}
	if s.session != nil {
		st.PID = s.session.pid
	}
	return st
}

func (s *server) current() *remoteSession {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.session
}
