package host

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/magenta-nvim/magenta/pkg/bashperm"
	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/guard"
	"github.com/magenta-nvim/magenta/pkg/capabilities/httpfetch"
	"github.com/magenta-nvim/magenta/pkg/capabilities/localshell"
	"github.com/magenta-nvim/magenta/pkg/capabilities/procsup"
	"github.com/magenta-nvim/magenta/pkg/capabilities/sshenv"
	"github.com/magenta-nvim/magenta/pkg/capabilities/toolfiles"
	"github.com/magenta-nvim/magenta/pkg/chat"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/localenv"
)

// sshSetupTimeout bounds making an SSH environment: connecting (ssh's
// ConnectTimeout, more through a ProxyJump) and the probe. A host that
// does not answer must not leave the command hanging.
const sshSetupTimeout = 45 * time.Second

// sshNoSandbox is why commands on a remote host cannot be confined: the
// guard says it when a command would have run in the sandbox, and the
// header says what follows from it.
const sshNoSandbox = "no sandbox on a remote host"

// sshBannerSafety is the header's word on an ssh thread's commands.
const sshBannerSafety = "no sandbox on the remote host: commands the checker does not allow ask first"

// sshConns are the connections of the ssh environments this host made
// (threads, reopened threads, sub-agents): each is closed when the host
// closes. A thread's connection is not closed with the thread — a
// sub-agent may share the environment — but its master ends by itself
// once idle for sshenv.DefaultControlPersist. Safe for concurrent use.
type sshConns struct {
	mu     sync.Mutex
	closed bool
	conns  []*sshenv.Conn
}

// add keeps c; false (and c closed) when the host is closing.
func (s *sshConns) add(c *sshenv.Conn) bool {
	s.mu.Lock()
	closed := s.closed
	if !closed {
		s.conns = append(s.conns, c)
	}
	s.mu.Unlock()
	if closed {
		_ = c.Close()
	}
	return !closed
}

// close closes c and forgets it (a sub-agent's environment, released
// when it ends); a connection already forgotten is left alone.
func (s *sshConns) close(c *sshenv.Conn) error {
	s.mu.Lock()
	kept := false
	for i, k := range s.conns {
		if k == c {
			s.conns = append(s.conns[:i], s.conns[i+1:]...)
			kept = true
			break
		}
	}
	s.mu.Unlock()
	if !kept {
		return nil // closeAll has it, or had it
	}
	return c.Close()
}

// closeAll closes every connection, at once (each `ssh -O exit` is a
// local socket round trip), and refuses new ones.
func (s *sshConns) closeAll() {
	s.mu.Lock()
	conns := s.conns
	s.conns, s.closed = nil, true
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Go(func() {
			if err := c.Close(); err != nil {
				slog.Debug("closing an ssh connection", "host", c.Host(), "err", err)
			}
		})
	}
	wg.Wait()
}

// sshOptions are the client options every ssh environment passes:
// `-F <Options.SSHConfig>` when the host was given a config file (the
// tests), else none (the user's ~/.ssh/config, as in their terminal).
func (h *Host) sshOptions() []string {
	if h.opts.SSHConfig == "" {
		return nil
	}
	return []string{"-F", h.opts.SSHConfig}
}

// agentDir is where the remote agent's binaries are: Options.SSHAgentDir,
// else beside the host, with magenta-supervisor (package sshenv uploads
// the one for the machine). Empty without it: commands on a channel each.
func (h *Host) agentDir() string {
	if h.opts.SSHAgentDir != "" {
		return h.opts.SSHAgentDir
	}
	if p := procsup.Beside(); p != "" {
		return filepath.Dir(p)
	}
	return ""
}

// sshEnvironment builds the environment of a thread that works on
// another machine through the user's OpenSSH client: files and commands
// there, web_fetch and web_search on this machine behind their usual
// decorators, logs on this machine. Unlike a container, the remote
// machine is not a boundary: commands go through the same permission
// checker as local ones (workspace = the remote directory), without a
// sandbox, so what it does not allow asks; files through the same file
// guard, which resolves paths on the remote machine.
func (h *Host) sshEnvironment(ctx context.Context, opts config.Options, host, cwd string) (*capabilities.Environment, error) {
	ctx, cancel := context.WithTimeout(ctx, sshSetupTimeout)
	defer cancel()
	env, conn, err := sshenv.NewEnvironment(ctx, sshenv.Config{Host: host, Cwd: cwd, Options: h.sshOptions(), AgentDir: h.agentDir()}, localshell.Options{
		LogRoot: opts.LogRoot(), MaxTimeout: opts.MaxShellTimeout(),
		LogMaxBytes: opts.Shell.LogMaxBytes, LogQuota: opts.Shell.LogQuotaBytes, LogMaxAge: opts.LogMaxAge(),
	})
	if err != nil {
		return nil, err
	}
	if !h.ssh.add(conn) {
		return nil, errors.New("the host is closing")
	}
	env.Close = func() error { return h.ssh.close(conn) }
	if st := conn.AgentStatus(); !conn.AgentRunning() {
		// Still works, each command on a channel of its own: slower.
		h.warnOnce("ssh " + host + ": " + st)
	}
	if sh, ok := env.Shell.(*sshenv.Shell); ok {
		env.Artifacts = toolfiles.Store{Root: sh.LogRoot()}
		if w := sh.Warning(); w != "" {
			h.warnOnce(w)
		}
	}
	workspace, home := env.Cwd, env.Home
	checks := &remoteChecks{ctx: h.ctx, conn: conn, workspace: workspace}
	env.Shell = guard.NewShell(env.Shell, guard.ShellOptions{
		Workspace: workspace, Cwd: workspace,
		Broker: h.broker, Remembered: h.remembered,
		Check: func(command, cwd string) guard.BashVerdict {
			checker := h.checker.Load()
			if checker == nil {
				return guard.BashVerdict{Reason: "the permission checker is not ready"}
			}
			// No Writable/Readable: nothing can be confined there, so
			// the verdicts are allow or ask.
			v := checker.Check(command, bashperm.Env{Cwd: cwd, Workspace: workspace, Home: home})
			if !v.Allow {
				return guard.BashVerdict{Sandbox: v.Sandbox, Reason: v.Reason}
			}
			if reason := checks.allowed(command); reason != "" {
				return guard.BashVerdict{Reason: reason}
			}
			return guard.BashVerdict{Allow: true}
		},
		Sandbox: func() (bool, string) { return false, sshNoSandbox },
	})
	env.Files = guard.NewFileIO(env.Files, guard.FileOptions{
		Workspace: workspace, Broker: h.broker, Remembered: h.remembered,
		Resolve: conn.RealPath,
	})
	env.Fetcher = guard.NewFetcher(httpfetch.New(httpfetch.Options{}), h.broker, h.remembered, httpfetch.IsPrivate)
	env.WebSearcher = localenv.WebSearcher(opts, h.broker, h.remembered, h.warnOnce)
	// grep: the remote rg (when the machine has it), its path judged on
	// the remote machine as the file tools' are (a planted link to a key
	// there asks).
	if env.Searcher != nil {
		env.Searcher = guard.NewRemoteSearcher(env.Searcher, workspace, h.broker, h.remembered, conn.RealPath)
	}
	banner := fmt.Sprintf("%s · %s · %s", env.Name, env.Cwd, sshBannerSafety)
	env.Banner = func() string { return banner }
	return env, nil
}

// newSSHThread makes a thread on another machine, off the event
// goroutine (connecting takes a moment). Nothing is made when the host
// cannot be used; the message says why (no ssh client, unreachable, a
// host key mismatch, a refused key, a missing directory).
func (h *Host) newSSHThread(app *chat.App, opts config.Options, host, cwd string) {
	go func() {
		defer h.recoverTo("new ssh thread")
		env, err := h.sshEnvironment(h.ctx, opts, host, cwd)
		if err != nil {
			slog.Warn("ssh thread", "host", host, "err", err)
			h.renderer.Notify("magenta: no thread made: "+err.Error(), chat.LevelError)
			return
		}
		app.NewThreadIn(env, chat.SystemPrompt(env, opts.SystemPrompt))
	}()
}

// sshHosts lists the concrete Host aliases of the ssh config (completion
// of :Magenta new-thread ssh); nothing when it cannot be read.
func (h *Host) sshHosts() []string {
	path := h.opts.SSHConfig
	if path == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return []string{}
		}
		path = filepath.Join(home, ".ssh", "config")
	}
	hosts, err := sshenv.Hosts(path)
	if err != nil || hosts == nil {
		return []string{}
	}
	return hosts
}
