package localshell

import (
	"errors"
	"fmt"
	"os"
	"os/exec"

	"github.com/magenta-nvim/magenta/pkg/sandbox"
	"github.com/magenta-nvim/magenta/pkg/sandbox/zygote"
)

// BwrapConfiner is the Confiner over bubblewrap and a sandbox.Policy:
// the same Policy the checker consults (Writable, Readable) decides the
// mounts, and its environment allowlist the command's environment.
type BwrapConfiner struct {
	// Status says whether bubblewrap can run now: its status, or why
	// not (detection still running, unavailable).
	Status func() (sandbox.Status, error)
	Policy sandbox.Policy
	// Parent, when set, runs commands without a terminal through the
	// session's confinement parent (package zygote) once it is ready:
	// the same mounts, without starting bubblewrap each time.
	Parent *zygote.Parent
}

var _ Confiner = BwrapConfiner{}

// Confine returns the bwrap argv prefix and environment for a command in
// cwd (of env, what the policy's allowlist keeps), and the check of what
// it left behind: a git repository the command created that would run
// a program at the user's next git command there is renamed aside
// (sandbox.Policy.DisarmNewRepositories). A workspace too large for the
// secret scan is refused rather than confined with secrets the scan did
// not reach.
func (c BwrapConfiner) Confine(cwd string, env []string, terminal bool) (Confinement, error) {
	st, err := c.Status()
	if err != nil {
		return Confinement{}, fmt.Errorf("the sandbox is unavailable: %w", err)
	}
	if !terminal && c.Parent != nil && c.Parent.Ready() {
		l, err := c.Policy.CommandOps(st, cwd)
		if err != nil {
			return Confinement{}, err
		}
		conf, err := c.confinement(l, nil, env)
		conf.Start = func(cmd *exec.Cmd) (Started, error) {
			in, _ := cmd.Stdin.(*os.File)
			out, _ := cmd.Stdout.(*os.File)
			errs, _ := cmd.Stderr.(*os.File)
			if (cmd.Stdin != nil && in == nil) || out == nil || errs == nil {
				return nil, errors.New("a command through the confinement parent needs files for its streams")
			}
			started, err := c.Parent.Run(cmd.Args, cmd.Env, cmd.Dir, l.Ops, in, out, errs)
			if errors.Is(err, zygote.ErrNotTaken) {
				// The parent died before the host saw it: bubblewrap,
				// as when it is not ready.
				return nil, fmt.Errorf("%w: %v", ErrNotTaken, err)
			}
			return started, err
		}
		conf.Fallback = func() (Confinement, error) {
			fl, err := c.Policy.Args(st, cwd)
			if err != nil {
				return Confinement{}, err
			}
			return c.confinement(fl, fl.Prefix, env)
		}
		return conf, err
	}
	args := c.Policy.Args
	if terminal {
		args = c.Policy.TerminalArgs
	}
	l, err := args(st, cwd)
	if err != nil {
		return Confinement{}, err
	}
	return c.confinement(l, l.Prefix, env)
}

func (c BwrapConfiner) confinement(l sandbox.Launch, argv, env []string) (Confinement, error) {
	if !l.Complete {
		return Confinement{}, fmt.Errorf("the workspace has more than %d files, more than the sandbox scans for secrets to hide; the command was not run confined", sandbox.MaxScanEntries)
	}
	return Confinement{
		Argv:  argv,
		Env:   append(c.Policy.Environ(env), l.Env...),
		After: func() []string { return c.Policy.DisarmNewRepositories(l.GitPaths) },
	}, nil
}

// ParentFor returns the confinement parent for policy: commands run
// through exe (magenta-supervisor, or the host itself) once a trial
// command in the workspace ran through it; log hears why it is not
// used. Close it when the session ends.
func ParentFor(status func() (sandbox.Status, error), policy sandbox.Policy, exe string, log func(string)) *zygote.Parent {
	return zygote.New(zygote.Options{
		Executable: exe,
		Args: func(self string, args ...string) ([]string, error) {
			st, err := status()
			if err != nil {
				return nil, err
			}
			return policy.ParentArgs(st, self, args...)
		},
		CheckOps: func() ([]string, error) {
			st, err := status()
			if err != nil {
				return nil, err
			}
			l, err := policy.CommandOps(st, policy.Workspace)
			return l.Ops, err
		},
		Log: log,
	})
}

// Blocked says what the sandbox blocked, judging a confined command's
// output.
func (c BwrapConfiner) Blocked(out []byte, exitCode int) string {
	what, _ := sandbox.Blocked(out, exitCode, c.Policy)
	return what
}
