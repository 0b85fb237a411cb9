package host

import (
	"encoding/json"
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
	"github.com/magenta-nvim/magenta/pkg/prompts"
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
	// Skills, commands and agents from files: nothing is read until
	// first needed (prompts.go).
	h.prompts = prompts.New(prompts.DirsFor(workspace), h.warnOnce)
	env.Skills = h.prompts.Skills()
	// One policy for the sandbox's mounts and the checker's idea of what
	// a confined command may write and read. Detection runs in the
	// background; the header says when it has ended.
	probe := startSandboxProbe(h.ctx, opts.Sandbox, h.renderer.Drawn(), func() {
		if app := h.App(); app != nil {
			app.Refresh()
		}
	})
	h.sandbox = probe
	policy := sandboxPolicy(opts.Sandbox, workspace)
	var writable, readable func(string) bool
	if opts.Sandbox.Mode() != config.SandboxOff {
		writable, readable = policy.Writable, policy.Readable
	}
	inner := localshell.New(localshell.Options{
		LogRoot: opts.LogRoot(), MaxTimeout: opts.MaxShellTimeout(), Cwd: env.Cwd,
		LogMaxBytes: opts.Shell.LogMaxBytes, LogQuota: opts.Shell.LogQuotaBytes, LogMaxAge: opts.LogMaxAge(),
		Confiner: localshell.BwrapConfiner{Status: probe.confinerStatus, Policy: policy},
	})
	// The shell may have fallen back from a log root it must not use
	// (a symlink, another user's directory); everything else follows it.
	logRoot := inner.LogRoot()
	if w := inner.Warning(); w != "" {
		h.warnOnce(w)
	}
	var shell capabilities.Shell = inner
	if h.opts.Shell != nil {
		shell = h.opts.Shell
	}
	env.Shell = guard.NewShell(shell, guard.ShellOptions{
		Workspace: workspace, Cwd: env.Cwd,
		Broker: h.broker, Remembered: h.remembered,
		Check: func(command, cwd string) guard.BashVerdict {
			v := h.checker.Load().Check(command, bashperm.Env{Cwd: cwd, Workspace: workspace, Home: home, Writable: writable, Readable: readable})
			return guard.BashVerdict{Allow: v.Allow, Sandbox: v.Sandbox, Reason: v.Reason}
		},
		Sandbox: probe.Available,
	})
	env.Banner = probe.Banner
	h.locator = &ripgrep.Locator{Configured: opts.Grep.RgPath, DataDir: dataDir, AllowDownload: opts.Grep.Download, Release: ripgrep.Pinned}
	env.Searcher = guard.NewSearcher(ripgrep.New(ripgrep.Options{Locator: h.locator}), workspace, h.broker, h.remembered)
	env.Fetcher = guard.NewFetcher(httpfetch.New(httpfetch.Options{}), h.broker, h.remembered, httpfetch.IsPrivate)
	env.Artifacts = toolfiles.Store{Root: logRoot}
	rules := make([]guard.FileRule, len(opts.Files.Rules))
	for i, r := range opts.Files.Rules {
		rules[i] = guard.FileRule{Path: r.Path, Read: r.Read, Write: r.Write, Secret: r.Secret}
	}
	// A log root that failed its checks (planted as a symlink, another
	// user's) grants nothing; a usable one grants reads of what is not a
	// secret.
	var readableRoots []string
	if inner.LogRootUsable() {
		readableRoots = []string{logRoot}
	}
	// The user's own skill directories are readable too (a skill's files
	// are what its instructions name); the workspace's are in the
	// workspace. Secrets below them still ask, and a root that is a link
	// grants nothing (pkg/prompts/doc.go).
	readableRoots = append(readableRoots, h.prompts.Dirs().UserRoots("skills")...)
	files := guard.NewFileIO(nvimbuf.New(h.nv, localfs.New()), guard.FileOptions{
		Workspace: workspace, Readable: readableRoots, Rules: rules,
		Broker: h.broker, Remembered: h.remembered,
	})
	env.Files = files
	// Context files and @file/@buf mentions go through the same check;
	// nothing asks at send, so what would ask is refused and named.
	h.contextFiles = files.Refusing()
	h.checkRead = files.CheckRead
	env.LSP, env.Diagnostics, env.LSPAvailable = h.lsp, h.lsp, h.lsp.Available
	env.Ask = guard.Asker(h.broker, guard.KindLSPCommand)
	reg := h.opts.Tools
	if reg == nil {
		reg = tools.Builtin(tools.Config{MaxShellTimeout: opts.MaxShellTimeout(), ShellInteractive: opts.Shell.Interactive})
	}
	// The tools' schemas are built after the first frame, off the
	// toggle's path and before the first request needs them.
	go func(reg *tools.Registry) {
		select {
		case <-h.renderer.Drawn():
			reg.Warm()
		case <-h.ctx.Done():
		}
	}(reg)
	reg, h.mcpLine = h.withMCP(opts, reg, env.Cwd, dataDir)
	return env, reg, nil
}

// bashChecker builds the permission checker with the user's rules and
// the commands that always ask (sandbox.requireApproval).
func bashChecker(opts config.Options) (*bashperm.Checker, error) {
	doc := map[string]json.RawMessage{}
	if len(opts.Shell.Rules) > 0 {
		doc["rules"] = opts.Shell.Rules
	}
	if len(opts.Sandbox.RequireApproval) > 0 {
		list, err := json.Marshal(opts.Sandbox.RequireApproval)
		if err != nil {
			return nil, err
		}
		doc["requireApproval"] = list
	}
	cfg := bashperm.Config{}
	if len(doc) > 0 {
		data, err := json.Marshal(doc)
		if err != nil {
			return nil, err
		}
		if cfg, err = bashperm.ParseConfig(data); err != nil {
			return nil, fmt.Errorf("magenta options: shell.rules or sandbox.requireApproval: %w", err)
		}
	}
	checker, err := bashperm.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("magenta options: shell.rules: %w", err)
	}
	return checker, nil
}
