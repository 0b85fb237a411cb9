package docker

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/localshell"
	"github.com/magenta-nvim/magenta/pkg/capabilities/posixremote"
)

// inspectTimeout bounds the check of the container's state after a
// command failed.
const inspectTimeout = 5 * time.Second

// Shell runs commands inside a container: posixremote's Shell with a
// launcher that runs `docker exec` of the wrapper (bash when the image
// has it, else sh). It is safe for concurrent use.
type Shell struct {
	*posixremote.Shell
	c *container
}

var _ capabilities.Shell = (*Shell)(nil)

// newShell returns a Shell for c; bash says whether the image has bash.
// opts configure the log root, caps and timeouts as for a local shell
// (posixremote.NewShell).
func newShell(c *container, bash bool, opts localshell.Options) *Shell {
	return &Shell{c: c, Shell: posixremote.NewShell(c.remote(), bash, opts, posixremote.ShellHooks{
		Launcher: func(kind string, interactive bool) localshell.Launcher { return execLauncher(c, kind, interactive) },
		// The engine could not enter the directory.
		NoDir: func(res *capabilities.ExecResult) bool {
			return res.ExitCode == 126 && res.TotalLines == 1 && strings.Contains(res.Head[0].Text, "chdir to cwd")
		},
		// The container stopped, vanished or is paused.
		Lost: func(ctx context.Context, _ *capabilities.ExecResult) error {
			ictx, cancel := context.WithTimeout(context.WithoutCancel(ctx), inspectTimeout)
			defer cancel()
			return c.usable(ictx)
		},
	})}
}

// StdinLauncher starts a command in the container as the shell's
// commands start (the wrapper that ends, at the end, everything the
// command started there), with its stdin attached (docker exec -i): a
// Docker thread's hooks read their event on it (pkg/hooks).
func (s *Shell) StdinLauncher() localshell.Launcher { return execLauncherFlag(s.c, s.Kind(), "-i") }

// execLauncher runs commands with `docker exec` of the wrapper script;
// kind is "bash" or "sh". An interactive one gets `-it`: the docker CLI,
// itself on the local PTY, puts that terminal in raw mode, relays the
// keystrokes to a terminal in the container (Ctrl-C there interrupts
// the command) and passes resizes on. The wrapper and its sweep are the
// same either way.
func execLauncher(c *container, kind string, interactive bool) localshell.Launcher {
	flag := ""
	if interactive {
		flag = "-it"
	}
	return execLauncherFlag(c, kind, flag)
}

// execLauncherFlag is execLauncher with docker exec's stdin flag ("",
// "-i", "-it").
func execLauncherFlag(c *container, kind, flag string) localshell.Launcher {
	return func(command, cwd string, env []string) (*localshell.Launch, error) {
		marker, err := posixremote.NewMarker()
		if err != nil {
			return nil, err
		}
		args := []string{"exec"}
		if flag != "" {
			args = append(args, flag)
		}
		if cwd != "" {
			args = append(args, "-w", cwd)
		}
		for _, kv := range env {
			args = append(args, "-e", kv)
		}
		args = append(args, c.name, "sh", "-c", posixremote.WrapScript, "sh", command, kind, marker)
		cmd := exec.Command(c.docker, c.args(args...)...)
		cmd.Env = os.Environ() // the CLI's own: DOCKER_HOST, its config
		end := func(ctx context.Context) error {
			cmd := c.command(ctx, "exec", c.name, "sh", "-c", posixremote.EndScript, "sh", marker)
			if out, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("ending the command in %s: %v: %s", c.name, err, out)
			}
			return nil
		}
		return &localshell.Launch{Cmd: cmd, End: end}, nil
	}
}
