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

// CheckBash decides whether command may run in cwd without asking; when
// not, reason says why in a short sentence.
type CheckBash func(command, cwd string) (allow bool, reason string)

// ShellOptions configures a guarded Shell.
type ShellOptions struct {
	// Workspace is the root the rules protect; Cwd the default working
	// directory. Both absolute.
	Workspace, Cwd string
	Check          CheckBash
	Broker         *approval.Broker
	Remembered     *Remembered
}

// Shell is a capabilities.Shell that asks before running what Check does
// not allow.
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
// returns a *capabilities.DeniedError.
func (s *Shell) Execute(ctx context.Context, command string, opts capabilities.ExecOptions) (*capabilities.ExecResult, error) {
	if opts.Cwd == "" {
		opts.Cwd = s.opts.Cwd
	}
	if !s.opts.Remembered.Has(KindBash, command) {
		allow, reason := s.decide(command, opts.Cwd)
		if !allow {
			d, err := askUser(ctx, s.opts.Broker, approval.Request{
				ThreadID: opts.ThreadID, ToolUseID: opts.RequestID,
				Kind: KindBash, Subject: command, Reason: reason,
			}, "the user declined to run it")
			if err != nil {
				return nil, err
			}
			if d == approval.AllowAlways {
				s.opts.Remembered.Remember(KindBash, command)
			}
		}
	}
	return s.inner.Execute(ctx, command, opts)
}

func (s *Shell) decide(command, cwd string) (bool, string) {
	if !within(s.opts.Workspace, cwd) {
		return false, fmt.Sprintf("runs in %s, outside the workspace", cwd)
	}
	return s.opts.Check(command, cwd)
}

// within reports whether path is root or below it (both cleaned,
// absolute; symlinks are the checker's business).
func within(root, path string) bool {
	rel, err := filepath.Rel(filepath.Clean(root), filepath.Clean(path))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel)
}
