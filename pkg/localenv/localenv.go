package localenv

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"os"

	"github.com/magenta-nvim/magenta/pkg/approval"
	"github.com/magenta-nvim/magenta/pkg/bashperm"
	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/guard"
	"github.com/magenta-nvim/magenta/pkg/capabilities/httpfetch"
	"github.com/magenta-nvim/magenta/pkg/capabilities/localfs"
	"github.com/magenta-nvim/magenta/pkg/capabilities/localshell"
	"github.com/magenta-nvim/magenta/pkg/capabilities/ripgrep"
	"github.com/magenta-nvim/magenta/pkg/capabilities/toolfiles"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/prompts"
	"github.com/magenta-nvim/magenta/pkg/sandbox/zygote"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// Options is what the local environment takes from its front end.
type Options struct {
	// Cwd is the workspace ("" : the process's working directory).
	Cwd string
	// DataDir is Neovim's stdpath("data") (or the headless equivalent):
	// where a managed ripgrep goes.
	DataDir string
	// Broker receives every question the guards ask; Remembered keeps
	// the ALWAYS answers. Both are the front end's, shared by its threads.
	Broker     *approval.Broker
	Remembered *guard.Remembered
	// Probe is the sandbox detection (StartProbe), started by the caller
	// when it suits it (the host after the first frame).
	Probe *Probe
	// Checker returns the command checker in force (the host replaces it
	// when setup() sends new rules), asked at every command.
	Checker func() *bashperm.Checker
	// Shell replaces the local shell under the permission guard (tests:
	// a scripted memshell); nil: localshell.
	Shell capabilities.Shell
	// Files wraps the disk FileIO before the guard (Neovim: the
	// buffer-aware nvimbuf, so unsaved buffers are the truth); nil: the
	// disk alone.
	Files func(disk capabilities.FileIO) capabilities.FileIO
	// AskConfined makes what the checker would run confined without
	// asking ask instead (headless --approve=never: only what it proves
	// read-only runs without a yes).
	AskConfined bool
	// Warn shows a warning once (a log root that fell back, a bad skill
	// file); nil: dropped.
	Warn func(string)
}

// Local is a built local environment and the parts its front end keeps.
type Local struct {
	Env *capabilities.Environment
	// Files is the guarded FileIO (Env.Files): context files go through
	// its Refusing form and mentions through CheckRead.
	Files *guard.FileIO
	// Locator finds ripgrep (:checkhealth asks it).
	Locator *ripgrep.Locator
	// Prompts are the skills, commands and agents from files.
	Prompts *prompts.Library
	// Parent is the sandbox's confinement parent (nil with the sandbox
	// off); the front end closes it when it ends.
	Parent *zygote.Parent
}

// New builds the local environment for the options: the real shell,
// ripgrep and HTTP fetcher, each behind its permission decorator, whose
// approvals go to o.Broker and whose ALWAYS answers o.Remembered keeps;
// tool artifacts beside the command logs; and files through o.Files (the
// log root and the user's skill directories readable without asking).
// Language servers and Ask are the caller's to set.
func New(opts config.Options, o Options) (*Local, error) {
	env, err := capabilities.NewLocal(o.Cwd)
	if err != nil {
		return nil, err
	}
	warn := o.Warn
	if warn == nil {
		warn = func(string) {}
	}
	home, _ := os.UserHomeDir()
	workspace := env.Cwd
	// Skills, commands and agents from files: nothing is read until
	// first needed.
	lib := prompts.New(prompts.DirsFor(workspace), warn)
	env.Skills = lib.Skills()
	// One policy for the sandbox's mounts and the checker's idea of what
	// a confined command may write and read.
	policy := SandboxPolicy(opts.Sandbox, workspace)
	var writable, readable func(string) bool
	if opts.Sandbox.Mode() != config.SandboxOff {
		writable, readable = policy.Writable, policy.Readable
	}
	probe := o.Probe
	// Confined commands go through a confinement parent started at the
	// first one (package zygote); until it is ready, and when it cannot
	// start, bubblewrap confines each command itself.
	var parent *zygote.Parent
	if opts.Sandbox.Mode() != config.SandboxOff {
		parent = localshell.ParentFor(probe.ConfinerStatus, policy, ParentExecutable(), func(msg string) { slog.Info("sandbox: " + msg) })
	}
	inner := localshell.New(localshell.Options{
		LogRoot: opts.LogRoot(), MaxTimeout: opts.MaxShellTimeout(), Cwd: env.Cwd,
		LogMaxBytes: opts.Shell.LogMaxBytes, LogQuota: opts.Shell.LogQuotaBytes, LogMaxAge: opts.LogMaxAge(),
		Confiner: localshell.BwrapConfiner{Status: probe.ConfinerStatus, Policy: policy, Parent: parent},
	})
	// The shell may have fallen back from a log root it must not use
	// (a symlink, another user's directory); everything else follows it.
	logRoot := inner.LogRoot()
	if w := inner.Warning(); w != "" {
		warn(w)
	}
	var shell capabilities.Shell = inner
	if o.Shell != nil {
		shell = o.Shell
	}
	env.Shell = guard.NewShell(shell, guard.ShellOptions{
		Workspace: workspace, Cwd: env.Cwd,
		Broker: o.Broker, Remembered: o.Remembered,
		Check: func(command, cwd string) guard.BashVerdict {
			v := o.Checker().Check(command, bashperm.Env{Cwd: cwd, Workspace: workspace, Home: home, Writable: writable, Readable: readable})
			if o.AskConfined && v.Sandbox && !v.Allow {
				v.Sandbox = false
			}
			return guard.BashVerdict{Allow: v.Allow, Sandbox: v.Sandbox, Reason: v.Reason}
		},
		Sandbox: probe.Available,
	})
	env.Banner = probe.Banner
	locator := &ripgrep.Locator{Configured: opts.Grep.RgPath, DataDir: o.DataDir, AllowDownload: opts.Grep.Download, Release: ripgrep.Pinned}
	env.Searcher = guard.NewSearcher(ripgrep.New(ripgrep.Options{Locator: locator}), workspace, o.Broker, o.Remembered)
	env.Fetcher = guard.NewFetcher(httpfetch.New(httpfetch.Options{}), o.Broker, o.Remembered, httpfetch.IsPrivate)
	env.WebSearcher = WebSearcher(opts, o.Broker, o.Remembered, warn)
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
	readableRoots = append(readableRoots, lib.Dirs().UserRoots("skills")...)
	var disk capabilities.FileIO = localfs.New()
	if o.Files != nil {
		disk = o.Files(disk)
	}
	files := guard.NewFileIO(disk, guard.FileOptions{
		Workspace: workspace, Readable: readableRoots, Rules: rules,
		Broker: o.Broker, Remembered: o.Remembered,
	})
	env.Files = files
	return &Local{Env: env, Files: files, Locator: locator, Prompts: lib, Parent: parent}, nil
}

// Tools is the built-in registry for the options.
func Tools(opts config.Options) *tools.Registry {
	return tools.Builtin(tools.Config{MaxShellTimeout: opts.MaxShellTimeout(), ShellInteractive: opts.Shell.Interactive})
}

// BashChecker builds the permission checker with the user's rules and
// the commands that always ask (sandbox.requireApproval).
func BashChecker(opts config.Options) (*bashperm.Checker, error) {
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
