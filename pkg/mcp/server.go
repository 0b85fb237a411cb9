package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/magenta-nvim/magenta/pkg/tools"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// startTimeout bounds connecting to a server and listing its tools.
const startTimeout = 30 * time.Second

type server struct {
	cfg ServerConfig
	m   *Manager

	mu       sync.Mutex
	state    State
	session  *sdk.ClientSession
	cmd      *exec.Cmd
	stderr   *stderrTail
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
	transport, cmd, stderr, err := s.cfg.transport(s.m.ctx)
	if err != nil {
		s.fail(err)
		return
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "magenta", Version: s.m.opts.Version}, &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			s.m.spawn(s.refresh)
		},
	})
	ctx, cancel := context.WithTimeout(s.m.ctx, startTimeout)
	defer cancel()
	session, err := client.Connect(ctx, transport, nil)
	stderr.started()
	if err != nil {
		killGroup(cmd)
		if cmd != nil && cmd.Process != nil {
			_ = cmd.Wait() // reap it, unless the SDK has
		}
		s.fail(errors.New(stderr.explain("could not start: " + err.Error())))
		return
	}
	s.mu.Lock()
	s.session, s.cmd, s.stderr = session, cmd, stderr
	retired := s.retired
	s.mu.Unlock()
	if s.m.ctx.Err() != nil || retired { // the host closed (or the file changed) while it started
		s.stop()
		return
	}
	if err := s.list(ctx, session); err != nil {
		s.stopSession(session, cmd)
		s.fail(fmt.Errorf("tools/list: %w", err))
		return
	}
	if !s.m.spawn(func() { s.watch(session, cmd) }) {
		s.stop() // the host closed meanwhile
	}
}

// watch notices the server ending (a crash) so the next need restarts it.
func (s *server) watch(session *sdk.ClientSession, cmd *exec.Cmd) {
	err := session.Wait()
	s.mu.Lock()
	current := s.session == session
	s.mu.Unlock()
	if !current || s.m.ctx.Err() != nil {
		return
	}
	s.stopSession(session, cmd)
	if err == nil {
		err = errors.New("the server closed the connection")
	}
	s.fail(errors.New(s.explain("exited: " + err.Error())))
	s.m.changed()
}

// list fetches the tools and makes the server ready.
func (s *server) list(ctx context.Context, session *sdk.ClientSession) error {
	var ts []tools.Tool
	var warnings []string
	for t, err := range session.Tools(ctx, nil) {
		if err != nil {
			return err
		}
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
	s.session, s.cmd = nil, nil
	s.retryAt = time.Now().Add(restartDelay(s.failures))
	slog.Warn("mcp: server failed", "server", s.cfg.Name, "err", err)
	if f := s.m.opts.OnFailure; f != nil && s.m.ctx.Err() == nil {
		go f(s.cfg.Name, err) // not under s.mu: it may ask for the status
	}
}

// broken is called when a call found the connection dead.
func (s *server) broken(session *sdk.ClientSession, err error) {
	s.mu.Lock()
	current := s.session == session
	cmd := s.cmd
	s.mu.Unlock()
	if !current {
		return
	}
	s.stopSession(session, cmd)
	s.fail(errors.New(s.explain(err.Error())))
	s.m.changed()
}

// explain adds the running server's stderr tail to msg.
func (s *server) explain(msg string) string {
	s.mu.Lock()
	tail := s.stderr
	s.mu.Unlock()
	return tail.explain(msg)
}

func (s *server) stop() {
	s.mu.Lock()
	session, cmd := s.session, s.cmd
	s.session, s.cmd, s.tools, s.state = nil, nil, nil, StateStopped
	s.mu.Unlock()
	s.stopSession(session, cmd)
}

// stopSession kills a stdio server's process group first (Close would
// otherwise wait for it to exit on its own) and then closes the session.
func (s *server) stopSession(session *sdk.ClientSession, cmd *exec.Cmd) {
	killGroup(cmd)
	if session != nil {
		_ = session.Close()
	}
}

func killGroup(cmd *exec.Cmd) {
	if cmd == nil || cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
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
	if s.cmd != nil && s.cmd.Process != nil {
		st.PID = s.cmd.Process.Pid
	}
	return st
}

func (s *server) current() *sdk.ClientSession {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.session
}
