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
	"github.com/magenta-nvim/magenta/pkg/capabilities/posixremote"
)

// Config is a Docker environment's configuration. The environment's Name
// is "docker:<Container>" whatever the context: a caller that shows or
// keeps the context keeps the Config.
type Config struct {
	// Container is the name or id of a running container.
	Container string
	// Cwd is the absolute working directory inside it; empty means the
	// container's own (its image's WORKDIR, else /).
	Cwd string
	// Context is the docker CLI context the container runs under (`docker
	// context ls`); every CLI call passes `--context Context`. Empty means
	// the CLI's default: DOCKER_CONTEXT, DOCKER_HOST or its current
	// context, as in the user's terminal. An unknown one is
	// ErrNoSuchContext.
	Context string
}

// NewEnvironment checks the engine and the container and returns the
// environment of a thread working inside it: Files, Shell (shellOpts as
// for a local shell: log root, caps, timeouts), Searcher (nil when the
// container has no rg), no LSP and no Fetcher (the caller sets the
// host's). Every failure says what is wrong: no docker CLI
// (ErrNotInstalled), no daemon (ErrNoDaemon), an unknown context
// (ErrNoSuchContext), an unknown, stopped or paused container, a cwd
// that does not exist.
func NewEnvironment(ctx context.Context, cfg Config, shellOpts localshell.Options) (*capabilities.Environment, error) {
	if cfg.Container == "" {
		return nil, errors.New("docker environment: no container given")
	}
	if cfg.Cwd != "" && !path.IsAbs(cfg.Cwd) {
		return nil, fmt.Errorf("docker environment: cwd %q is not absolute", cfg.Cwd)
	}
	if strings.HasPrefix(cfg.Context, "-") {
		return nil, fmt.Errorf("docker environment: invalid context %q", cfg.Context)
	}
	bin, err := lookDocker()
	if err != nil {
		return nil, err
	}
	c := &container{docker: bin, context: cfg.Context, name: cfg.Container}
	if err := c.usable(ctx); err != nil {
		return nil, err
	}
	cwd := cfg.Cwd
	if cwd != "" {
		cwd = path.Clean(cwd)
	}
	m := c.remote()
	p, err := m.Probe(ctx, cwd)
	if err != nil {
		return nil, err
	}
	shellOpts.Cwd = p.Cwd
	files := posixremote.NewFileIO(m)
	env := &capabilities.Environment{
		Name:        "docker:" + cfg.Container,
		Cwd:         p.Cwd,
		Home:        p.Home,
		Files:       files,
		Shell:       newShell(c, p.Bash, shellOpts),
		LSP:         capabilities.NoLSP{},
		Diagnostics: capabilities.NoLSP{},
	}
	if p.RgVersion != "" {
		env.Searcher = newSearcher(c, files, p.RgVersion)
	}
	return env, nil
}

// Containers lists the names of the running containers of the CLI's
// default context (for completion).
func Containers(ctx context.Context) ([]string, error) {
	return ContainersIn(ctx, "")
}

// ContainersIn lists the names of the running containers of the CLI
// context dockerContext ("" for the default, as Containers).
func ContainersIn(ctx context.Context, dockerContext string) ([]string, error) {
	out, err := cli(ctx, dockerContext, "ps", "--format", "{{.Names}}")
	if err != nil {
		return nil, err
	}
	return strings.Fields(out), nil
}

// Contexts lists the docker CLI's contexts by name (`docker context
// ls`), for completion; "default" is one of them.
func Contexts(ctx context.Context) ([]string, error) {
	out, err := cli(ctx, "", "context", "ls", "--format", "{{.Name}}")
	if err != nil {
		return nil, err
	}
	return strings.Fields(out), nil
}

// Version is the Docker engine's version (for :checkhealth).
func Version(ctx context.Context) (string, error) {
	return cli(ctx, "", "version", "--format", "{{.Server.Version}}")
}

// cli runs the docker CLI (in dockerContext, "" for the default) and
// returns its trimmed stdout.
func cli(ctx context.Context, dockerContext string, args ...string) (string, error) {
	bin, err := lookDocker()
	if err != nil {
		return "", err
	}
	c := &container{docker: bin, context: dockerContext}
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
