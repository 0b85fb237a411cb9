package host

import (
	"fmt"
	"os"

	"github.com/magenta-nvim/magenta/pkg/bashperm"
	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/guard"
	"github.com/magenta-nvim/magenta/pkg/capabilities/httpfetch"
	"github.com/magenta-nvim/magenta/pkg/capabilities/localfs"
	"github.com/magenta-nvim/magenta/pkg/capabilities/localshell"
	"github.com/magenta-nvim/magenta/pkg/capabilities/nvimbuf"
	"github.com/magenta-nvim/magenta/pkg/capabilities/ripgrep"
	"github.com/magenta-nvim/magenta/pkg/capabilities/toolfiles"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// environment builds the local environment for the options: the real
// shell, ripgrep and HTTP fetcher, each behind its permission decorator,
// whose approvals go to the host's broker and whose ALWAYS answers the
// host remembers; tool artifacts beside the command logs; and files
// through the user's buffers (the log root readable without asking).
func (h *Host) environment(opts config.Options, cwd, dataDir string) (*capabilities.Environment, *tools.Registry, error) {
	env, err := capabilities.NewLocal(cwd)
	if err != nil {
		return nil, nil, err
	}
	checker, err := bashChecker(opts)
	if err != nil {
		return nil, nil, err
	}
	h.checker.Store(checker)
	home, _ := os.UserHomeDir()
	workspace := env.Cwd
	inner := localshell.New(localshell.Options{LogRoot: opts.LogRoot(), MaxTimeout: opts.MaxShellTimeout(), Cwd: env.Cwd})
	env.Shell = guard.NewShell(inner, guard.ShellOptions{
		Workspace: workspace, Cwd: env.Cwd,
		Broker: h.broker, Remembered: h.remembered,
		Check: func(command, cwd string) (bool, string) {
			v := h.checker.Load().Check(command, bashperm.Env{Cwd: cwd, Workspace: workspace, Home: home})
			return v.Allow, v.Reason
		},
	})
	h.locator = &ripgrep.Locator{Configured: opts.Grep.RgPath, DataDir: dataDir, AllowDownload: opts.Grep.Download, Release: ripgrep.Pinned}
	env.Searcher = guard.NewSearcher(ripgrep.New(ripgrep.Options{Locator: h.locator}), workspace, h.broker, h.remembered)
	env.Fetcher = guard.NewFetcher(httpfetch.New(httpfetch.Options{}), h.broker, h.remembered, httpfetch.IsPrivate)
	env.Artifacts = toolfiles.Store{Root: opts.LogRoot()}
	rules := make([]guard.FileRule, len(opts.Files.Rules))
	for i, r := range opts.Files.Rules {
		rules[i] = guard.FileRule{Path: r.Path, Read: r.Read, Write: r.Write, Secret: r.Secret}
	}
	env.Files = guard.NewFileIO(nvimbuf.New(h.nv, localfs.New()), guard.FileOptions{
		Workspace: workspace, Readable: []string{opts.LogRoot()}, Rules: rules,
		Broker: h.broker, Remembered: h.remembered,
	})
	env.LSP, env.Diagnostics = h.lsp, h.lsp
	reg := h.opts.Tools
	if reg == nil {
		reg = tools.Builtin(tools.Config{MaxShellTimeout: opts.MaxShellTimeout()})
	}
	return env, reg, nil
}

// bashChecker builds the permission checker with the user's rules.
func bashChecker(opts config.Options) (*bashperm.Checker, error) {
	cfg := bashperm.Config{}
	if len(opts.Shell.Rules) > 0 {
		var err error
		cfg, err = bashperm.ParseConfig([]byte(`{"rules":` + string(opts.Shell.Rules) + `}`))
		if err != nil {
			return nil, fmt.Errorf("magenta options: shell.rules: %w", err)
		}
	}
	checker, err := bashperm.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("magenta options: shell.rules: %w", err)
	}
	return checker, nil
}
