package docker

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
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
)

// cliWaitDelay bounds the wait for a docker CLI's pipes after it was
// killed (a cancelled call).
const cliWaitDelay = 2 * time.Second

// container is one container reached through the docker CLI. It is safe
// for concurrent use; FileIO, Shell and Searcher share one.
type container struct {
	docker string // the CLI's path
	name   string
}

// lookDocker finds the CLI.
func lookDocker() (string, error) {
	path, err := exec.LookPath("docker")
	if err != nil {
		return "", fmt.Errorf("%w (no docker on PATH)", ErrNotInstalled)
	}
	return path, nil
}

// command is the CLI with args; cancelling ctx kills it. The CLI keeps the
// host's environment (DOCKER_HOST, DOCKER_CONFIG, its context).
func (c *container) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, c.docker, args...)
	cmd.Env = os.Environ()
	cmd.WaitDelay = cliWaitDelay
	return cmd
}

// script runs `sh -c script sh args...` in the container, with stdin
// when it is not nil, and returns its stdout and exit code. err is set
// only when the CLI could not run or ctx ended; a daemon refusal (a
// paused or stopped container) comes back as a non-zero code with its
// message in stderr.
func (c *container) script(ctx context.Context, stdin io.Reader, script string, args ...string) (out []byte, code int, stderr string, err error) {
	argv := []string{"exec"}
	if stdin != nil {
		argv = append(argv, "-i")
	}
	argv = append(argv, c.name, "sh", "-c", script, "sh")
	cmd := c.command(ctx, append(argv, args...)...)
	cmd.Stdin = stdin
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	if ctx.Err() != nil {
		return nil, -1, "", ctx.Err()
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return nil, -1, "", fmt.Errorf("docker exec: %w", err)
	}
	return o.Bytes(), cmd.ProcessState.ExitCode(), strings.TrimSpace(e.String()), nil
}

// refusal turns the daemon's message about the container into an error
// matching ErrPaused, ErrNotRunning or ErrNoSuchContainer, or nil when the
// message is about something else.
func (c *container) refusal(stderr string) error {
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
	if strings.Contains(stderr, "Cannot connect to the Docker daemon") || strings.Contains(stderr, "error during connect") ||
		strings.Contains(stderr, "while trying to connect to the Docker daemon") {
		return fmt.Errorf("%w: %s", ErrNoDaemon, stderr)
	}
	return fmt.Errorf("docker: %s", stderr)
}
