package host

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/docker"
	"github.com/magenta-nvim/magenta/pkg/chat"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/threadstore"
)

// threadStore opens the saved threads of workspace under dataDir
// (Neovim's stdpath("data")), and prunes the old ones in the background
// so the first frame never waits for it. nil when threads are not saved
// or the store cannot be opened (the user is told; the chat works
// unsaved).
func (h *Host) threadStore(opts config.Options, dataDir, workspace string) *threadstore.Store {
	if !opts.Threads.Persisted() {
		return nil
	}
	store, err := threadstore.Open(dataDir, workspace, func(msg string) {
		slog.Warn("thread store", "msg", msg)
		h.renderer.Notify("magenta: "+msg, chat.LevelWarn)
	})
	if err != nil {
		h.warnOnce("threads are not saved: " + err.Error())
		return nil
	}
	if maxAge := opts.Threads.MaxAgeDuration(); maxAge > 0 {
		go func() {
			defer h.recoverTo("pruning saved threads")
			if n := store.Prune(maxAge, time.Now()); n > 0 {
				slog.Info("pruned saved threads", "count", n, "maxAge", maxAge)
			}
		}()
	}
	return store
}

// openSavedEnv makes the environment a saved thread worked in (a Docker
// container, an SSH host), off the app goroutine: chat.Deps.OpenEnv.
// Only remote environments are made; local is the caller's own.
func (h *Host) openSavedEnv(opts config.Options) chat.OpenEnvFunc {
	return func(cfg threadstore.Env, done func(*capabilities.Environment, string, error)) {
		go func() {
			defer h.recoverTo("reopening a " + cfg.Type + " thread")
			env, err := h.EnvironmentFor(h.ctx, opts, cfg)
			if err != nil {
				done(nil, "", err)
				return
			}
			done(env, chat.SystemPrompt(env, opts.SystemPrompt), nil)
		}()
	}
}

// errLocalEnvironment: EnvironmentFor makes no local environment; the
// caller has the host's (the app's Deps.Env).
var errLocalEnvironment = errors.New("a local environment is not made from a saved configuration: use the app's own (chat Deps.Env)")

// EnvironmentFor makes the remote environment cfg names — "docker" (on
// cfg.Context's engine), "ssh" (cfg.Host) — with the host's guards,
// broker and ALWAYS answers, as a new thread of that kind gets it. It
// blocks while connecting (bounded by the kind's setup timeout): call it
// off the event and app goroutines. "local" (or "") is an error: the
// local environment is the caller's own.
func (h *Host) EnvironmentFor(ctx context.Context, opts config.Options, cfg threadstore.Env) (*capabilities.Environment, error) {
	switch cfg.Type {
	case config.EnvDocker:
		return h.dockerEnvironment(ctx, opts, docker.Config{Container: cfg.Container, Context: cfg.Context, Cwd: cfg.Cwd})
	case config.EnvSSH:
		return h.sshEnvironment(ctx, opts, cfg.Host, cfg.Cwd)
	case "", config.EnvLocal:
		return nil, errLocalEnvironment
	}
	return nil, fmt.Errorf("unknown environment type %q (docker or ssh)", cfg.Type)
}

// shownScreen is the renderer as the app's Screen, telling Lua which
// thread is shown (host.lua keeps it), so a host started after this one
// died or was restarted reopens that thread (attach's "resume").
type shownScreen struct {
	*Renderer
	shown chan string // the latest thread id shown; capacity 1
}

// Show implements chat.Screen. It never blocks: the app goroutine is
// the only sender, and a value not yet taken is replaced.
func (s shownScreen) Show(key string) {
	s.Renderer.Show(key)
	if key == chat.ThreadListKey {
		return
	}
	select {
	case <-s.shown:
	default:
	}
	s.shown <- key
}

// tellShown passes the shown thread to Lua until the host closes.
func (h *Host) tellShown(shown <-chan string) {
	defer h.recoverTo("telling Lua the shown thread")
	for {
		select {
		case <-h.ctx.Done():
			return
		case id := <-shown:
			if h.nv == nil {
				continue
			}
			if err := h.nv.ExecLua(`require('magenta.host').shown(...)`, nil, id); err != nil {
				slog.Debug("telling Lua the shown thread", "err", err)
			}
		}
	}
}
