package ripgrep

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Limits on what rg's stderr contributes to a result.
const (
	// MaxErrors caps SearchResult.Errors; the last kept entry says how
	// many more there were.
	MaxErrors      = 20
	maxStderrBytes = 64 << 10
)

// errTimedOut is the cause of a search's own deadline, as opposed to the
// caller's context ending.
var errTimedOut = errors.New("search timed out")

// command prepares rg: the environment without RIPGREP_CONFIG_PATH, stdin
// from the null device (os/exec's default), and its own process group,
// which is SIGKILLed when ctx ends.
func command(ctx context.Context, path string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env = rgEnv()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if errors.Is(err, syscall.ESRCH) {
			return os.ErrProcessDone
		}
		return err
	}
	cmd.WaitDelay = 2 * time.Second
	return cmd
}

func versionOutput(ctx context.Context, path string) ([]byte, error) {
	return command(ctx, path, "--version").Output()
}

// run executes one search, feeding stdout to col, and fills col.res with
// the outcome. It returns an error only when rg could not start or ctx
// ended first.
func run(ctx context.Context, timeout time.Duration, start Starter, dir string, args []string, col *collector) error {
	tctx, cancelTimeout := context.WithTimeoutCause(ctx, timeout, errTimedOut)
	defer cancelTimeout()
	pctx, kill := context.WithCancel(tctx)
	defer kill()
	cmd := start(pctx, dir, args)
	stderr := &stderrBuf{}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		switch {
		case ctx.Err() != nil:
			return fmt.Errorf("search interrupted: %w", ctx.Err())
		case context.Cause(tctx) == errTimedOut:
			col.res.TimedOut = true
			return nil
		}
		return fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	stopped, readErr := col.read(stdout)
	if stopped || readErr != nil {
		kill() // enough is known; do not let rg produce the rest
	}
	waitErr := cmd.Wait()

	ps := cmd.ProcessState
	exited := ps != nil && ps.Exited()
	code := -1
	if exited {
		code = ps.ExitCode()
	}
	var ctxErr error
	switch {
	case stopped:
	case readErr != nil:
		col.addError(fmt.Sprintf("reading rg output: %v", readErr))
	case !exited && ctx.Err() != nil:
		ctxErr = fmt.Errorf("search interrupted: %w", ctx.Err())
	case !exited && context.Cause(tctx) == errTimedOut:
		col.res.TimedOut = true
	case !exited:
		col.addError(fmt.Sprintf("rg did not finish: %v", waitErr))
	case code == 2 && col.records == 0 && len(stderr.buf) > 0:
		// A fatal error (a regex parse error, a bad glob): one message
		// spanning several lines.
		col.addError(strings.ToValidUTF8(strings.TrimSpace(string(stderr.buf)), "\uFFFD"))
		return nil
	case code > 2 || (code == 2 && len(stderr.buf) == 0):
		col.addError(fmt.Sprintf("rg exited with status %d", code))
	}
	stderr.addLines(col)
	return ctxErr
}

// stderrBuf keeps the first maxStderrBytes of rg's stderr.
type stderrBuf struct {
	mu      sync.Mutex
	buf     []byte
	dropped bool
}

func (b *stderrBuf) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	room := min(maxStderrBytes-len(b.buf), len(p))
	if room > 0 {
		b.buf = append(b.buf, p[:room]...)
	}
	if room < len(p) {
		b.dropped = true
	}
	return len(p), nil
}

// addLines adds one error per stderr line (paths made relative like the
// result's), ending with a count of those that did not fit.
func (b *stderrBuf) addLines(col *collector) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var lines []string
	for l := range bytes.SplitSeq(b.buf, []byte("\n")) {
		s := strings.TrimSpace(strings.ToValidUTF8(string(l), "\uFFFD"))
		if s == "" {
			continue
		}
		if col.prefix != "" {
			if rel, ok := strings.CutPrefix(s, col.prefix); ok {
				s = rel
			}
		}
		lines = append(lines, s)
	}
	room := MaxErrors - len(col.res.Errors)
	if len(lines) > room || (b.dropped && len(lines) > 0) {
		keep := min(max(room-1, 0), len(lines))
		more := fmt.Sprintf("… %d more messages from rg", len(lines)-keep)
		if b.dropped {
			more = "… more messages from rg"
		}
		lines = append(lines[:keep], more)
	}
	if room > 0 {
		col.res.Errors = append(col.res.Errors, lines...)
	}
}
