package host

import (
	"github.com/magenta-nvim/magenta/pkg/bashperm"
	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/guard"
	"github.com/magenta-nvim/magenta/pkg/capabilities/nvimbuf"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/localenv"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// environment builds the local environment for the options
// (pkg/localenv, shared with the headless front end), with what only
// Neovim has plugged in: files through the user's buffers, the editor's
// language servers, and sandbox detection after the first frame. The
// guards' approvals go to the host's broker and the host remembers
// their ALWAYS answers.
func (h *Host) environment(opts config.Options, cwd, dataDir string) (*capabilities.Environment, *tools.Registry, error) {
	checker, err := bashChecker(opts)
	if err != nil {
		return nil, nil, err
	}
	h.checker.Store(checker)
	// Detection runs in the background; the header says when it has
	// ended.
	probe := startSandboxProbe(h.ctx, opts.Sandbox, h.renderer.Drawn(), func() {
		if app := h.App(); app != nil {
			app.Refresh()
		}
	})
	h.sandbox = probe
	local, err := localenv.New(opts, localenv.Options{
		Cwd: cwd, DataDir: dataDir, Broker: h.broker, Remembered: h.remembered,
		Probe: probe, Checker: h.checker.Load, Shell: h.opts.Shell, Warn: h.warnOnce,
		Files: func(disk capabilities.FileIO) capabilities.FileIO { return nvimbuf.New(h.nv, disk) },
	})
	if err != nil {
		return nil, nil, err
	}
	env := local.Env
	h.prompts, h.locator, h.parent = local.Prompts, local.Locator, local.Parent
	// Context files and @file/@buf mentions go through the same check;
	// nothing asks at send, so what would ask is refused and named.
	h.contextFiles = local.Files.Refusing()
	h.checkRead = local.Files.CheckRead
	env.LSP, env.Diagnostics, env.LSPAvailable = h.lsp, h.lsp, h.lsp.Available
	env.Ask = guard.Asker(h.broker, guard.KindLSPCommand)
	reg := h.opts.Tools
	if reg == nil {
		reg = localenv.Tools(opts)
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
func bashChecker(opts config.Options) (*bashperm.Checker, error) { return localenv.BashChecker(opts) }
