package localshell

import (
	"errors"
	"os/exec"
	"strings"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// Confiner runs commands in a sandbox (the host builds one over
// pkg/sandbox's Policy; tests may give their own). Confine returns how
// to run a command whose working directory is cwd, given the
// environment it would have unconfined (the sandbox keeps an allowlist
// of it); terminal says the command runs on a pseudo-terminal of its
// own, which must stay its controlling terminal. Blocked reads a
// confined command's output and says what the sandbox stopped, or "".
type Confiner interface {
	Confine(cwd string, env []string, terminal bool) (Confinement, error)
	Blocked(output []byte, exitCode int) string
}

// Confinement is how one confined command runs.
type Confinement struct {
	// Argv is the prefix to put before bash; Env the command's whole
	// environment.
	Argv, Env []string
	// After, when set, runs once the command and everything it started
	// have ended, and returns what the sandbox had to undo
	// (ExecResult.Disarmed).
	After func() []string
	// Start, when set, starts the command itself in place of running
	// Argv (Launch.Start).
	Start func(cmd *exec.Cmd) (Started, error)
	// Fallback, with Start, is the confinement to use instead when
	// Start says the command was not taken (ErrNotTaken): nothing of it
	// ran, and it runs confined the other way.
	Fallback func() (Confinement, error)
}

// errNoConfiner answers a confined run on a shell without a sandbox: it
// must never run the command unconfined instead.
var errNoConfiner = errors.New("this shell cannot run commands confined (no sandbox)")

// confinedLaunch launches bash under the confiner's prefix, with the
// environment the confiner keeps of the hardened one: a confined
// command may reach the network when sandbox.network allows it, and
// API keys and database URLs are what an injected prompt would send
// out.
func (s *Shell) confinedLaunch(command, cwd string, env []string) (*Launch, error) {
	return s.confinedLaunchOn(command, cwd, env, false)
}

// confinedTerminalLaunch is confinedLaunch for a command on a PTY.
func (s *Shell) confinedTerminalLaunch(command, cwd string, env []string) (*Launch, error) {
	return s.confinedLaunchOn(command, cwd, env, true)
}

func (s *Shell) confinedLaunchOn(command, cwd string, env []string, terminal bool) (*Launch, error) {
	if s.confiner == nil {
		return nil, errNoConfiner
	}
	c, err := s.confiner.Confine(cwd, env, terminal)
	if err != nil {
		return nil, err
	}
	if c.Start != nil {
		cmd := exec.Command("bash", "--noprofile", "--norc", "-c", command)
		cmd.Dir, cmd.Env = cwd, c.Env
		l := &Launch{Cmd: cmd, After: c.After, Start: c.Start}
		if c.Fallback != nil {
			l.Fallback = func() (*Launch, error) {
				fc, err := c.Fallback()
				if err != nil {
					return nil, err
				}
				return prefixLaunch(fc, command, cwd)
			}
		}
		return l, nil
	}
	return prefixLaunch(c, command, cwd)
}

// prefixLaunch runs bash under c's argv prefix.
func prefixLaunch(c Confinement, command, cwd string) (*Launch, error) {
	prefix := c.Argv
	if len(prefix) == 0 {
		return nil, errNoConfiner
	}
	args := append(append(append([]string(nil), prefix[1:]...), "bash", "--noprofile", "--norc", "-c"), command)
	cmd := exec.Command(prefix[0], args...)
	cmd.Dir = cwd
	cmd.Env = c.Env
	return &Launch{Cmd: cmd, After: c.After}, nil
}

// blockedBy asks the confiner what a failed confined run ran into,
// reading the output the result kept (head and tail lines).
func (s *Shell) blockedBy(res *capabilities.ExecResult) string {
	if s.confiner == nil || res.ExitCode == 0 {
		return ""
	}
	var b strings.Builder
	for _, l := range res.Head {
		b.WriteString(l.Text)
		b.WriteByte('\n')
	}
	for _, l := range res.Tail {
		b.WriteString(l.Text)
		b.WriteByte('\n')
	}
	return s.confiner.Blocked([]byte(b.String()), res.ExitCode)
}
