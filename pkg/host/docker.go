package host

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/docker"
	"github.com/magenta-nvim/magenta/pkg/capabilities/guard"
	"github.com/magenta-nvim/magenta/pkg/capabilities/httpfetch"
	"github.com/magenta-nvim/magenta/pkg/capabilities/localshell"
	"github.com/magenta-nvim/magenta/pkg/capabilities/toolfiles"
	"github.com/magenta-nvim/magenta/pkg/chat"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/localenv"
)

// dockerSetupTimeout bounds making a Docker environment (a few docker
// CLI calls; a daemon that hangs must not leave the command hanging).
const dockerSetupTimeout = 20 * time.Second

// dockerEnvironment builds the environment of a thread that works in a
// container: files, commands and search run inside it, ungated (the
// container is the boundary); web_fetch runs on the host, behind its
// usual decorator; logs stay on the host, where get_file cannot read
// them (the log is named in the result for the user). A container of a
// named Docker context is called "docker:<context>/<container>" (neither
// name can hold a "/"): the thread list and the header show the context,
// and the saved thread keeps it (chat's envConfig reads it back).
func (h *Host) dockerEnvironment(ctx context.Context, opts config.Options, cfg docker.Config) (*capabilities.Environment, error) {
	ctx, cancel := context.WithTimeout(ctx, dockerSetupTimeout)
	defer cancel()
	env, err := docker.NewEnvironment(ctx, cfg, localshell.Options{
		LogRoot: opts.LogRoot(), MaxTimeout: opts.MaxShellTimeout(),
		LogMaxBytes: opts.Shell.LogMaxBytes, LogQuota: opts.Shell.LogQuotaBytes, LogMaxAge: opts.LogMaxAge(),
	})
	if err != nil {
		return nil, err
	}
	if cfg.Context != "" {
		env.Name = "docker:" + cfg.Context + "/" + cfg.Container
	}
	env.Fetcher = guard.NewFetcher(httpfetch.New(httpfetch.Options{}), h.broker, h.remembered, httpfetch.IsPrivate)
	env.WebSearcher = localenv.WebSearcher(opts, h.broker, h.remembered, h.warnOnce)
	if sh, ok := env.Shell.(*docker.Shell); ok {
		env.Artifacts = toolfiles.Store{Root: sh.LogRoot()}
	}
	banner := fmt.Sprintf("%s · %s · commands run inside the container without asking", env.Name, env.Cwd)
	if env.Searcher == nil {
		banner += " · no ripgrep there (grep is not offered)"
	}
	env.Banner = func() string { return banner }
	return env, nil
}

// newDockerThread makes a thread in a container, off the event
// goroutine (docker calls take a moment). Nothing is made when the
// container cannot be used; the message says why.
func (h *Host) newDockerThread(app *chat.App, opts config.Options, cfg docker.Config) {
	go func() {
		defer h.recoverTo("new docker thread")
		env, err := h.dockerEnvironment(h.ctx, opts, cfg)
		if err != nil {
			slog.Warn("docker thread", "container", cfg.Container, "context", cfg.Context, "err", err)
			h.renderer.Notify("magenta: no thread made: "+err.Error(), chat.LevelError)
			return
		}
		app.NewThreadIn(env, chat.SystemPrompt(env, opts.SystemPrompt))
	}()
}
