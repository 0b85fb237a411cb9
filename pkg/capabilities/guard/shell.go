package guard

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/magenta-nvim/magenta/pkg/approval"
	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// KindBash is the approval kind of shell commands.
const KindBash = "bash"

// BashVerdict is the permission check's answer for one command: Allow
// (safe anywhere: runs unconfined), Sandbox (runs without asking, but
// only confined) or neither (asks). Reason says why it is not allowed,
// in a short sentence.
type BashVerdict struct {
	Allow, Sandbox bool
	Reason         string
}

// CheckBash decides how command may run in cwd.
type CheckBash func(command, cwd string) BashVerdict

// ShellOptions configures a guarded Shell.
type ShellOptions struct {
	// Workspace is the root the rules protect; Cwd the default working
	// directory. Both absolute.
	Workspace, Cwd string
	Check          CheckBash
	Broker         *approval.Broker
	Remembered     *Remembered
	// Sandbox reports whether the inner Shell can run commands confined
	// now, and if not, why ("bwrap not found"). nil: it cannot.
	Sandbox func() (available bool, why string)
}

// Shell is a capabilities.Shell that runs what Check allows or would
// confine in the sandbox when there is one (without one, what it allows
// runs unconfined), and asks before running anything else: with the
// sandbox available, nothing runs outside it unless the user said yes.
type Shell struct {
	inner capabilities.Shell
	opts  ShellOptions
}

var _ capabilities.Shell = (*Shell)(nil)

// NewShell guards inner.
func NewShell(inner capabilities.Shell, opts ShellOptions) *Shell {
	return &Shell{inner: inner, opts: opts}
}

// Execute implements capabilities.Shell. A command the user declines, or
// one whose approval was withdrawn because the thread was aborted,
// returns a *capabilities.DeniedError. What the user approved (now or
// with ALWAYS) runs unconfined, as approved; everything else runs
// confined when the sandbox is available. A confined run that the
// sandbox blocked offers to run the command again outside it.
func (s *Shell) Execute(ctx context.Context, command string, opts capabilities.ExecOptions) (*capabilities.ExecResult, error) {
	if opts.Cwd == "" {
		opts.Cwd = s.opts.Cwd
	}
	opts.Sandbox = false
	if capabilities.ReadOnly(ctx) {
		return s.readOnly(ctx, command, opts)
	}
	key := rememberKey(command, opts.Cwd)
	if s.opts.Remembered.Has(KindBash, key) {
		return s.inner.Execute(ctx, command, opts)
	}
	v := s.decide(command, opts.Cwd)
	available, why := s.sandbox()
	switch {
	case v.Allow && available:
		// Even a command the checker proves read-only runs confined:
		// what git or a tool executes from a planted configuration then
		// runs without credentials, network or writes outside the
		// workspace.
		return s.confined(ctx, command, opts, key, true)
	case v.Allow:
		return s.inner.Execute(ctx, command, opts)
	case v.Sandbox:
		if available {
			return s.confined(ctx, command, opts, key, false)
		}
		v.Reason = fmt.Sprintf("%s; the sandbox that would run it confined is off (%s)", v.Reason, why)
	}
	if err := s.approve(ctx, command, opts, key, v.Reason); err != nil {
		return nil, err
	}
	return s.inner.Execute(ctx, command, opts)
}

// readOnly runs command in plan mode: only what the checker proves
// read-only runs (confined when the sandbox is available, never offered
// to run outside); an ALWAYS given before does not count, and nothing
// is asked.
func (s *Shell) readOnly(ctx context.Context, command string, opts capabilities.ExecOptions) (*capabilities.ExecResult, error) {
	v := s.decide(command, opts.Cwd)
	if !v.Allow {
		return nil, &capabilities.DeniedError{What: command, Reason: "plan mode: only commands that only read may run, and this one " + v.Reason + " (present your plan with exit_plan_mode; once the user approves it, commands run as usual)"}
	}
	if available, _ := s.sandbox(); available {
		confinedOpts := opts
		confinedOpts.Sandbox = true
		if res, err := s.inner.Execute(ctx, command, confinedOpts); err == nil || ctx.Err() != nil {
			return res, err
		}
	}
	return s.inner.Execute(ctx, command, opts)
}

// confined runs command in the sandbox. When the sandbox blocked
// something, the user may run it again outside: yes returns that run's
// result; no (or an abort while asking) returns the confined one, which
// says what was blocked. A command the checker allows (allowed) that
// cannot be confined at all — a workspace too large for the secret
// scan, a sandbox that failed to start — runs unconfined, as it would
// without a sandbox: the checker proved it read-only, and the shell's
// hardened environment keeps git from running repository programs.
func (s *Shell) confined(ctx context.Context, command string, opts capabilities.ExecOptions, key string, allowed bool) (*capabilities.ExecResult, error) {
	confinedOpts := opts
	confinedOpts.Sandbox = true
	res, err := s.inner.Execute(ctx, command, confinedOpts)
	if err != nil && ctx.Err() == nil && allowed {
		return s.inner.Execute(ctx, command, opts)
	}
	if err != nil && ctx.Err() == nil {
		// It could not run confined (a workspace too large to scan for
		// secrets, a sandbox that failed to start): never run it
		// unconfined silently, but let the user decide rather than
		// leave the model with a command it can never run.
		reason := fmt.Sprintf("it could not run in the sandbox (%v) — run it outside the sandbox?", err)
		if aerr := s.approve(ctx, command, opts, key, reason); aerr != nil {
			return nil, aerr
		}
		return s.inner.Execute(ctx, command, opts)
	}
	if err != nil || res == nil || res.Blocked == "" || ctx.Err() != nil {
		return res, err
	}
	reason := res.Blocked + " — run it again outside the sandbox?"
	if err := s.approve(ctx, command, opts, key, reason); err != nil {
		return res, nil
	}
	return s.inner.Execute(ctx, command, opts)
}

// approve asks the user to run command unconfined; an ALWAYS covers the
// command in this working directory from then on.
func (s *Shell) approve(ctx context.Context, command string, opts capabilities.ExecOptions, key, reason string) error {
	d, err := askUser(ctx, s.opts.Broker, approval.Request{
		ThreadID: opts.ThreadID, ToolUseID: opts.RequestID,
		Kind: KindBash, Subject: command, Reason: reason,
	}, "the user declined to run it")
	if err == nil && d == approval.AllowAlways {
		s.opts.Remembered.Remember(KindBash, key)
	}
	return err
}

func (s *Shell) sandbox() (bool, string) {
	if s.opts.Sandbox == nil {
		return false, "no sandbox is configured"
	}
	return s.opts.Sandbox()
}

// rememberKey is what an ALWAYS for a command covers: the command string
// run in the same physical working directory. The model chooses the
// working directory, so an ALWAYS for `rm -rf build` in the workspace
// must not cover the same string run in $HOME or through a symlink to
// it. (ExecOptions passes no environment variables to the command; if it
// ever does, they belong in the key too.) The NUL cannot occur in either
// part, so distinct pairs give distinct keys.
func rememberKey(command, cwd string) string {
	dir := filepath.Clean(cwd)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return command + "\x00" + dir
}

func (s *Shell) decide(command, cwd string) BashVerdict {
	if !within(s.opts.Workspace, cwd) {
		return BashVerdict{Reason: fmt.Sprintf("runs in %s, outside the workspace", cwd)}
	}
	return s.opts.Check(command, cwd)
}

// within reports whether path is root or below it (both cleaned,
// absolute; symlinks are the checker's business).
func within(root, path string) bool {
	rel, err := filepath.Rel(filepath.Clean(root), filepath.Clean(path))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel)
}
