package sshenv

import (
	"context"
	"fmt"
	"path"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/localshell"
	"github.com/magenta-nvim/magenta/pkg/capabilities/posixremote"
)

// Probe is what NewEnvironment learns from the remote machine.
type Probe = posixremote.Probe

// ProbeRemote runs the probe: the resolved cwd (the remote home when
// cwd is empty), $HOME, bash, rg.
func (c *Conn) ProbeRemote(ctx context.Context, cwd string) (Probe, error) {
	return c.remote.Probe(ctx, cwd)
}

// NewEnvironment connects to cfg.Host and returns the environment of a
// thread working there: Files, Shell (shellOpts as for a local shell:
// log root, caps, timeouts), Searcher (the remote rg; nil without
// one), no LSP, and the Conn,
// which the caller closes when the thread ends. Failures say what is
// wrong: no client, an unreachable host, a host key mismatch, a refused
// key, a cwd that does not exist.
func NewEnvironment(ctx context.Context, cfg Config, shellOpts localshell.Options) (*capabilities.Environment, *Conn, error) {
	if cfg.Cwd != "" && !path.IsAbs(cfg.Cwd) {
		return nil, nil, fmt.Errorf("ssh environment: cwd %q is not absolute", cfg.Cwd)
	}
	c, err := Dial(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	cwd := cfg.Cwd
	if cwd != "" {
		cwd = path.Clean(cwd)
	}
	p, err := c.ProbeRemote(ctx, cwd)
	if err != nil {
		_ = c.Close()
		return nil, nil, err
	}
	shellOpts.Cwd = p.Cwd
	files := posixremote.NewFileIO(c.remote)
	env := &capabilities.Environment{
		Name:        "ssh:" + cfg.Host,
		Cwd:         p.Cwd,
		Home:        p.Home,
		Files:       files,
		Shell:       NewShell(c, p.Bash, shellOpts),
		LSP:         capabilities.NoLSP{},
		Diagnostics: capabilities.NoLSP{},
	}
	if p.RgVersion != "" {
		env.Searcher = &Searcher{c: c, files: files, name: fmt.Sprintf("rg %s (on %s)", p.RgVersion, cfg.Host)}
	}
	return env, c, nil
}
