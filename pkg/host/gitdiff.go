package host

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/magenta-nvim/magenta/pkg/bashperm"
	"github.com/magenta-nvim/magenta/pkg/capabilities/localshell"
	"github.com/magenta-nvim/magenta/pkg/chat/view"
)

// @diff and @staged (lua/magenta/mentions.lua) ask the host for their
// text with the "git_diff" request, so that git runs the way the shell
// runs it, not with whatever the repository configured.
const (
	// gitDiffTimeout is the default deadline; the request may give a
	// shorter or longer one, up to gitDiffMaxTimeout.
	gitDiffTimeout    = 5 * time.Second
	gitDiffMaxTimeout = 60 * time.Second
	// gitDiffMaxBytes bounds what is kept of git's output (the chat cuts
	// an attachment much shorter, saying how much there was).
	gitDiffMaxBytes = 8 << 20
)

// gitDiffArgs are git's arguments for @diff (staged false) or @staged,
// of path when it is not empty. Besides the environment's overrides
// (localshell.HardenedEnv: fsmonitor, hooks, pager, submodule recursion),
// the command line turns off what the environment cannot: external diff
// programs and textconv. Filters (a clean command) still run on work-tree
// files, which is why gitDiff first asks bashperm.RepositoryReason.
func gitDiffArgs(staged bool, path string) []string {
	args := []string{
		"-c", "core.fsmonitor=false", "-c", "diff.ignoreSubmodules=dirty", "-c", "diff.submodule=short",
		"diff", "--no-ext-diff", "--no-textconv", "--no-color",
	}
	if staged {
		args = append(args, "--staged")
	}
	if path != "" {
		args = append(args, "--", path)
	}
	return args
}

// gitDiffEnv is the hardened environment without the variables that
// choose another repository than the one git would find from the working
// directory, which is the one RepositoryReason checked.
func gitDiffEnv() []string {
	var base []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES":
			continue
		}
		base = append(base, kv)
	}
	return localshell.HardenedEnv(base)
}

// gitDiff runs @diff (staged false) or @staged in cwd and returns the
// attachment's label and text, as the chat lists it and the model gets
// it. A repository whose config could make git run a program is not
// diffed: the label says why (naming the key) and the model is told.
func gitDiff(ctx context.Context, cwd string, staged bool, path string, timeout time.Duration) (label, text string) {
	name, what := "diff", "Working tree changes (git diff"
	if staged {
		name, what = "staged", "Staged changes (git diff --staged"
	}
	mention := "@" + name
	if path != "" {
		mention += ":" + path
		what += " -- " + path
	}
	what += ")"
	failed := func(why string) (string, string) {
		return mention + " (failed)", fmt.Sprintf("The user mentioned %s but %s failed: %s", mention, what, why)
	}
	if !filepath.IsAbs(cwd) {
		return failed("no absolute working directory was given")
	}
	if reason := bashperm.RepositoryReason(cwd); reason != "" {
		return mention + " (refused: " + reason + ")", fmt.Sprintf(
			"The user mentioned %s but magenta did not run %s, because it %s. The user can run git in a terminal if they trust this repository.",
			mention, what, reason)
	}
	if timeout <= 0 {
		timeout = gitDiffTimeout
	}
	timeout = min(timeout, gitDiffMaxTimeout)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", gitDiffArgs(staged, path)...)
	cmd.Dir = cwd
	cmd.Env = gitDiffEnv()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	var stdout, stderr capped
	stdout.max, stderr.max = gitDiffMaxBytes, 64<<10
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return failed(fmt.Sprintf("git took longer than %d ms and was stopped", timeout.Milliseconds()))
	}
	if err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			return failed("git could not be started: " + err.Error())
		}
		// The first line says why (git's usage text may follow).
		for _, line := range strings.Split(stderr.b.String(), "\n") {
			if line = strings.TrimSpace(line); line != "" {
				return failed(line)
			}
		}
		return failed(fmt.Sprintf("git exited with %d", exit.ExitCode()))
	}
	out := strings.TrimSuffix(stdout.b.String(), "\n")
	if out == "" {
		return mention + " (no changes)", fmt.Sprintf("The user mentioned %s: %s shows no changes.", mention, what)
	}
	lines := strings.Count(out, "\n") + 1
	if stdout.cut {
		out += "\n[git's output was cut here]"
	}
	return fmt.Sprintf("%s (%s)", mention, view.Count(lines, "line", "lines")), what + ":\n```diff\n" + out + "\n```"
}

// capped keeps the first max bytes written to it and drops the rest.
type capped struct {
	b   bytes.Buffer
	max int
	cut bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.b.Len(); room < len(p) {
		c.cut = true
		c.b.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return c.b.Write(p)
}

// gitDiffRequest answers the "git_diff" request: {label, text}.
func (h *Host) gitDiffRequest(p gitDiffReq) map[string]any {
	timeout := time.Duration(p.Timeout) * time.Millisecond
	label, text := gitDiff(h.ctx, p.Cwd, p.Staged, p.Path, timeout)
	return map[string]any{"label": label, "text": text}
}
