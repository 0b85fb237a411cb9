package docker

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path"
	"strings"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/localshell"
)

// Config is a Docker environment's configuration.
type Config struct {
	// Container is the name or id of a running container.
	Container string
	// Cwd is the absolute working directory inside it; empty means the
	// container's own (its image's WORKDIR, else /).
	Cwd string
}

// probeScript $1=cwd (may be empty): prints the cwd (resolved), $HOME,
// whether bash exists, and rg's version line, one per line; exits
// codeNotExist when the cwd is not a directory.
const probeScript = `if [ -n "$1" ]; then cd -- "$1" 2>/dev/null || exit 10; fi
pwd
printf '%s\n' "$HOME"
if command -v bash >/dev/null 2>&1; then echo bash; else echo sh; fi
rg --version 2>/dev/null | { read -r l; echo "$l"; }`

// probe is what NewEnvironment learns from inside the container.
type probe struct {
	cwd, home string
	bash      bool
	rgVersion string // "" without rg
}

// NewEnvironment checks the engine and the container and returns the
// environment of a thread working inside it: Files, Shell (shellOpts as
// for a local shell: log root, caps, timeouts), Searcher (nil when the
// container has no rg), no LSP and no Fetcher (the caller sets the
// host's). Every failure says what is wrong: no docker CLI
// (ErrNotInstalled), no daemon (ErrNoDaemon), an unknown, stopped or
// paused container, a cwd that does not exist.
func NewEnvironment(ctx context.Context, cfg Config, shellOpts localshell.Options) (*capabilities.Environment, error) {
	if cfg.Container == "" {
		return nil, errors.New("docker environment: no container given")
	}
	if cfg.Cwd != "" && !path.IsAbs(cfg.Cwd) {
		return nil, fmt.Errorf("docker environment: cwd %q is not absolute", cfg.Cwd)
	}
	bin, err := lookDocker()
	if err != nil {
		return nil, err
	}
	c := &container{docker: bin, name: cfg.Container}
	if err := c.usable(ctx); err != nil {
		return nil, err
	}
	cwd := cfg.Cwd
	if cwd != "" {
		cwd = path.Clean(cwd)
	}
	p, err := c.probe(ctx, cwd)
	if err != nil {
		return nil, err
	}
	shellOpts.Cwd = p.cwd
	env := &capabilities.Environment{
		Name:        "docker:" + cfg.Container,
		Cwd:         p.cwd,
		Home:        p.home,
		Files:       newFileIO(c),
		Shell:       newShell(c, p.bash, shellOpts),
		LSP:         capabilities.NoLSP{},
		Diagnostics: capabilities.NoLSP{},
	}
	if p.rgVersion != "" {
		env.Searcher = newSearcher(c, p.rgVersion)
	}
	return env, nil
}

// probe runs probeScript.
func (c *container) probe(ctx context.Context, cwd string) (probe, error) {
	out, code, stderr, err := c.script(ctx, nil, probeScript, cwd)
	switch {
	case err != nil:
		return probe{}, fmt.Errorf("docker container %s: %w", c.name, err)
	case code == codeNotExist:
		return probe{}, fmt.Errorf("docker container %s: cwd %s: %w", c.name, cwd, capabilities.ErrNotExist)
	case code != 0:
		if rerr := c.refusal(stderr); rerr != nil {
			return probe{}, rerr
		}
		return probe{}, fmt.Errorf("docker container %s: cannot run sh in it (exit %d): %s", c.name, code, stderr)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) < 3 {
		return probe{}, fmt.Errorf("docker container %s: unexpected probe output %q", c.name, out)
	}
	p := probe{cwd: lines[0], home: lines[1], bash: lines[2] == "bash"}
	if len(lines) > 3 {
		// "ripgrep 14.1.1 (rev …)"
		if f := strings.Fields(lines[3]); len(f) >= 2 && f[0] == "ripgrep" {
			p.rgVersion = f[1]
		}
	}
	return p, nil
}

// Containers lists the names of the running containers (for completion).
func Containers(ctx context.Context) ([]string, error) {
	out, err := cli(ctx, "ps", "--format", "{{.Names}}")
	if err != nil {
		return nil, err
	}
	return strings.Fields(out), nil
}

// Version is the Docker engine's version (for :checkhealth).
func Version(ctx context.Context) (string, error) {
	return cli(ctx, "version", "--format", "{{.Server.Version}}")
}

// cli runs the docker CLI and returns its trimmed stdout.
func cli(ctx context.Context, args ...string) (string, error) {
	bin, err := lookDocker()
	if err != nil {
		return "", err
	}
	c := &container{docker: bin}
	cmd := c.command(ctx, args...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			return "", fmt.Errorf("docker: %w", err)
		}
		return "", daemonError(strings.TrimSpace(e.String()), err)
	}
	return strings.TrimSpace(o.String()), nil
}
