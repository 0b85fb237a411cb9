package host

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/docker"
	"github.com/magenta-nvim/magenta/pkg/capabilities/localshell"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/hooks"
	"github.com/magenta-nvim/magenta/pkg/mcp/project"
)

// startHooks makes the hook engine (pkg/hooks) of setup()'s hooks and,
// unless hooksProjectFile is false, of the workspace's
// .claude/settings.json and settings.local.json (read when the user
// first sends a message, run once trusted). A hooks option pkg/hooks
// cannot read fails the attach, as bad shell.rules do: a policy hook the
// user believes in must not silently not run. Called with h.mu held,
// after environment().
func (h *Host) startHooks(opts config.Options, env *capabilities.Environment, dataDir string) error {
	setup, ignored, err := hooks.ParseOption(opts.Hooks)
	if err != nil {
		return fmt.Errorf("magenta options: %w", err)
	}
	for _, n := range ignored {
		h.warnOnce(n)
	}
	// Workspace hooks run as the agent's commands do: the same sandbox
	// policy (a policy value; detection is the probe's).
	confiner := localshell.BwrapConfiner{Status: h.sandbox.ConfinerStatus, Policy: sandboxPolicy(opts.Sandbox, env.Cwd)}
	var gate *hooks.Gate
	if opts.ReadHooksProjectFile() {
		workspace := env.Cwd
		// The trust is keyed by the real path: a symlinked checkout is
		// the same workspace.
		if real, err := filepath.EvalSymlinks(workspace); err == nil {
			workspace = real
		}
		var store *project.Store
		if dataDir != "" {
			store = project.NewStore(filepath.Join(dataDir, "magenta", hooks.StoreFile))
		}
		gate = hooks.NewGate(hooks.GateOptions{
			Workspace: workspace, Store: store, Broker: h.broker,
			How:  func() string { return h.workspaceHookPlace(opts, confiner, env.Cwd).How },
			Warn: h.warnOnce,
			OnChange: func() {
				if app := h.App(); app != nil {
					app.Refresh()
				}
			},
		})
	}
	h.hooks = hooks.New(hooks.Options{
		Setup: setup, SetupIgnored: ignored, Gate: gate, Broker: h.broker,
		Place: func(env *capabilities.Environment, workspace bool) (hooks.Place, error) {
			return h.hookPlace(opts, confiner, env, workspace)
		},
	})
	return nil
}

// hookPlace is where a thread's hooks run (the policy is pkg/hooks'
// doc.go): in a Docker thread's container; on this machine, setup()'s
// as the user and the workspace's as the agent's commands run.
func (h *Host) hookPlace(opts config.Options, confiner localshell.BwrapConfiner, env *capabilities.Environment, workspace bool) (hooks.Place, error) {
	if sh, ok := env.Shell.(*docker.Shell); ok {
		return hooks.Place{Launch: sh.StdinLauncher(), Cwd: env.Cwd, How: "in " + env.Name}, nil
	}
	if env.Name != "local" {
		return hooks.Place{}, fmt.Errorf("hooks do not run in %s threads", env.Name)
	}
	if !workspace {
		return hooks.BashPlace(env.Cwd, nil, "as you, unconfined (setup())"), nil
	}
	return h.workspaceHookPlace(opts, confiner, env.Cwd), nil
}

// workspaceHookPlace runs a workspace's hooks confined when the sandbox
// is available, else unconfined with the sandbox's environment
// allowlist only (as .mcp.json's servers).
func (h *Host) workspaceHookPlace(opts config.Options, confiner localshell.BwrapConfiner, cwd string) hooks.Place {
	if opts.Sandbox.Mode() != config.SandboxOff {
		if ok, _ := h.sandbox.Available(); ok {
			return hooks.ConfinedPlace(cwd, localshell.HardenedEnv(os.Environ()), confiner, "confined by the sandbox, as the agent's commands")
		}
	}
	why := "the sandbox is off"
	if opts.Sandbox.Mode() != config.SandboxOff {
		_, why = h.sandbox.Available()
		why = "no sandbox: " + why
	}
	return hooks.BashPlace(cwd, confiner.Policy.Environ(os.Environ()), "unconfined ("+why+"), with PATH, HOME, the locale and toolchain variables only")
}

// hooksList answers the "hooks" request (:Magenta hooks): every hook,
// its source and whether it runs, and where the workspace's files stand.
func (h *Host) hooksList() (hooks.Listing, error) {
	h.mu.Lock()
	e := h.hooks
	h.mu.Unlock()
	if e == nil {
		return hooks.Listing{}, errors.New("the host is not attached yet")
	}
	return e.List(), nil
}

// hooksTrust trusts (or untrusts) the workspace's hooks: :Magenta
// hooks-trust and hooks-untrust. It never blocks.
func (h *Host) hooksTrust(trust bool) {
	h.mu.Lock()
	e := h.hooks
	h.mu.Unlock()
	g := (*hooks.Gate)(nil)
	if e != nil {
		g = e.Gate()
	}
	switch {
	case g == nil:
		h.warnOnce("the workspace's .claude/settings.json hooks are not read (hooksProjectFile = false)")
	case trust:
		g.Trust()
	default:
		g.Untrust()
	}
}

// configureHooks applies setup()'s hooks given again.
func (h *Host) configureHooks(opts config.Options) error {
	setup, ignored, err := hooks.ParseOption(opts.Hooks)
	if err != nil {
		return fmt.Errorf("magenta options: %w", err)
	}
	h.mu.Lock()
	e := h.hooks
	h.mu.Unlock()
	if e != nil {
		e.SetSetup(setup, ignored)
		for _, n := range ignored {
			h.warnOnce(n)
		}
	}
	return nil
}

// closeHooks withdraws the trust question and stops the hooks running.
func (h *Host) closeHooks() {
	h.mu.Lock()
	e := h.hooks
	h.mu.Unlock()
	if e != nil {
		e.Close()
	}
}
