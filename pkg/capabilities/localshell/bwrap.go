package localshell

import (
	"fmt"

	"github.com/magenta-nvim/magenta/pkg/sandbox"
)

// BwrapConfiner is the Confiner over bubblewrap and a sandbox.Policy:
// the same Policy the checker consults (Writable, Readable) decides the
// mounts, and its environment allowlist the command's environment.
type BwrapConfiner struct {
	// Status says whether bubblewrap can run now: its status, or why
	// not (detection still running, unavailable).
	Status func() (sandbox.Status, error)
	Policy sandbox.Policy
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
	args := c.Policy.Args
	if terminal {
		args = c.Policy.TerminalArgs
	}
	l, err := args(st, cwd)
	if err != nil {
		return Confinement{}, err
	}
	if !l.Complete {
		return Confinement{}, fmt.Errorf("the workspace has more than %d files, more than the sandbox scans for secrets to hide; the command was not run confined", sandbox.MaxScanEntries)
	}
	return Confinement{
		Argv:  l.Prefix,
		Env:   append(c.Policy.Environ(env), l.Env...),
		After: func() []string { return c.Policy.DisarmNewRepositories(l.GitPaths) },
	}, nil
}

// Blocked says what the sandbox blocked, judging a confined command's
// output.
func (c BwrapConfiner) Blocked(out []byte, exitCode int) string {
	what, _ := sandbox.Blocked(out, exitCode, c.Policy)
	return what
}
