package docker

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/magenta-nvim/magenta/pkg/capabilities/posixremote"
)

// Errors of engine and container state; test with errors.Is.
var (
	// ErrNotInstalled: no docker CLI on the host's PATH.
	ErrNotInstalled = errors.New("docker is not installed")
	// ErrNoDaemon: the CLI is there but no Docker daemon answers it.
	ErrNoDaemon = errors.New("the Docker daemon does not answer")
	// ErrNoSuchContainer: the engine knows no container of that name.
	ErrNoSuchContainer = errors.New("no such container")
	// ErrNotRunning: the container exists but is not running (created,
	// exited, or removed while a command ran).
	ErrNotRunning = errors.New("is not running")
	// ErrPaused: the container is paused; nothing can run in it.
	ErrPaused = errors.New("is paused")
	// ErrNoSuchContext: the docker CLI knows no context of that name
	// (Config.Context, or DOCKER_CONTEXT).
	ErrNoSuchContext = errors.New("no such docker context")
)

// cliWaitDelay bounds the wait for a docker CLI's pipes after it was
// killed (a cancelled call).
const cliWaitDelay = 2 * time.Second

// container is one container reached through the docker CLI, the
// posixremote.Runner of its FileIO. It is safe for concurrent use;
// FileIO, Shell and Searcher share one.
type container struct {
	docker  string // the CLI's path
	context string // the CLI's context; "" for its default
	name    string
}

var _ posixremote.Runner = (*container)(nil)

// remote is c with the words of its errors.
func (c *container) remote() *posixremote.Remote {
	return &posixremote.Remote{Runner: c, Name: "docker container " + c.name, Program: "docker exec",
		Where: "in container " + c.name, Reading: "reading in the container"}
}

// lookDocker finds the CLI.
func lookDocker() (string, error) {
	path, err := exec.LookPath("docker")
	if err != nil {
		return "", fmt.Errorf("%w (no docker on PATH)", ErrNotInstalled)
	}
	return path, nil
}

// args are the CLI's arguments for args: the global --context first
// when the environment has one.
func (c *container) args(args ...string) []string {
	if c.context == "" {
		return args
	}
	return append([]string{"--context", c.context}, args...)
}

// command is the CLI with args; cancelling ctx kills it. The CLI keeps the
// host's environment (DOCKER_HOST, DOCKER_CONFIG, DOCKER_CONTEXT when no
// context is given).
func (c *container) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, c.docker, c.args(args...)...)
	cmd.Env = os.Environ()
	cmd.WaitDelay = cliWaitDelay
	return cmd
}

// Command implements posixremote.Runner: `docker exec [-i] <container>
// sh -c script sh args...`.
func (c *container) Command(ctx context.Context, stdin bool, script string, args ...string) (*exec.Cmd, error) {
	argv := []string{"exec"}
	if stdin {
		argv = append(argv, "-i")
	}
	argv = append(argv, c.name, "sh", "-c", script, "sh")
	return c.command(ctx, append(argv, args...)...), nil
}

// Failure implements posixremote.Runner: a daemon refusal (a paused,
// stopped or removed container, an unknown context) is the CLI's status,
// not the script's.
func (c *container) Failure(_ context.Context, _ int, stderr string, _ error) error {
	return c.refusal(stderr)
}

// refusal turns the daemon's message about the container into an error
// matching ErrPaused, ErrNotRunning, ErrNoSuchContainer or
// ErrNoSuchContext, or nil when the message is about something else.
func (c *container) refusal(stderr string) error {
	if err := contextError(stderr); err != nil {
		return err
	}
	switch {
	case strings.Contains(stderr, "is paused"):
		return fmt.Errorf("docker container %s %w (docker unpause %s)", c.name, ErrPaused, c.name)
	case strings.Contains(stderr, "is not running"), strings.Contains(stderr, "is restarting"):
		return fmt.Errorf("docker container %s %w", c.name, ErrNotRunning)
	case strings.Contains(stderr, "No such container"):
		return fmt.Errorf("docker container %s: %w (removed?)", c.name, ErrNoSuchContainer)
	}
	return nil
}

// state is the container's status as the engine reports it: "running",
// "paused", "exited", …; an unknown container is ErrNoSuchContainer.
func (c *container) state(ctx context.Context) (string, error) {
	cmd := c.command(ctx, "container", "inspect", "--format", "{{.State.Status}}", c.name)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		msg := strings.TrimSpace(e.String())
		if strings.Contains(msg, "No such") {
			return "", fmt.Errorf("docker container %s: %w", c.name, ErrNoSuchContainer)
		}
		return "", daemonError(msg, err)
	}
	return strings.TrimSpace(o.String()), nil
}

// usable returns nil when the container runs, else why it cannot be used.
func (c *container) usable(ctx context.Context) error {
	st, err := c.state(ctx)
	switch {
	case err != nil:
		return err
	case st == "running":
		return nil
	case st == "paused":
		return fmt.Errorf("docker container %s %w (docker unpause %s)", c.name, ErrPaused, c.name)
	}
	return fmt.Errorf("docker container %s %w (status %s)", c.name, ErrNotRunning, st)
}

// daemonError is a CLI failure that is not about one container: most
// often no daemon answering.
func daemonError(stderr string, err error) error {
	if stderr == "" {
		stderr = err.Error()
	}
	if cerr := contextError(stderr); cerr != nil {
		return cerr
	}
	if strings.Contains(stderr, "Cannot connect to the Docker daemon") || strings.Contains(stderr, "error during connect") ||
		strings.Contains(stderr, "while trying to connect to the Docker daemon") {
		return fmt.Errorf("%w: %s", ErrNoDaemon, stderr)
	}
	return fmt.Errorf("docker: %s", stderr)
}

// contextError is ErrNoSuchContext naming the context when the CLI's
// message says it does not know it (`context "x": context not found`),
// else nil.
func contextError(stderr string) error {
	_, rest, ok := strings.Cut(stderr, `context "`)
	if !ok || !strings.Contains(stderr, "context not found") {
		return nil
	}
	name, _, _ := strings.Cut(rest, `"`)
	return fmt.Errorf("docker context %q: %w (docker context ls lists them)", name, ErrNoSuchContext)
}
