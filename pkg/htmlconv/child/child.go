package child

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/childproc"
	"github.com/magenta-nvim/magenta/pkg/htmlconv/internal/childhook"
)

// BinaryName is the converter's executable: the provider process's
// (remote.BinaryName, which this package does not import to keep
// pkg/provider out of pkg/tools' dependencies; a test checks they agree).
const BinaryName = "magenta-provider"

// The converter's command line: ModeMarkdown [--BaseFlag=URL] or
// ModeText, the page on stdin. htmlconv.RunCLI serves it.
const (
	ModeMarkdown = "html-to-markdown"
	ModeText     = "html-to-text"
	BaseFlag     = "base"
)

// ExitUsage is the converter's exit status for a command line it does
// not know: a converter built from another version than the host.
const ExitUsage = 2

const (
	// Timeout bounds one conversion, on top of the caller's context.
	Timeout = 30 * time.Second
	// MaxOutput caps the converted text, in bytes: past it the child is
	// killed and the text cut. The page is at most FetchMaxBytes (the
	// converter reads no more), its text rarely longer, and the model
	// reads only a budget of it anyway (tools.WebFetchCharBudget).
	MaxOutput = 4 * capabilities.FetchMaxBytes
	// maxStderr caps the child's diagnostics kept for an error.
	maxStderr = 1 << 10
	// waitDelay bounds the wait for the child's pipes once it is killed.
	waitDelay = time.Second
)

// timeout is Timeout; tests shorten it (export_test.go).
var timeout = Timeout

// Path is BinaryName in the directory of the running executable (bin/
// of the checkout, beside magenta-host).
func Path() string { return childproc.Beside(BinaryName) }

// Convert converts the HTML page body to format, "markdown" (links made
// absolute against base, when not empty) or "text", in a child process
// (see the package doc). When the text passes MaxOutput bytes, the first
// MaxOutput bytes (cut back to a whole character) are returned with cut
// true. Errors name the cause: the executable missing, the timeout, the
// context's error, or the child's failure with its stderr. Safe for
// concurrent use: each call runs its own process.
func Convert(ctx context.Context, format, base string, body []byte) (text string, cut bool, err error) {
	var args []string
	switch format {
	case "markdown":
		args = []string{ModeMarkdown, "--" + BaseFlag + "=" + base}
	case "text":
		args = []string{ModeText}
	default:
		return "", false, fmt.Errorf("cannot convert HTML to %q", format)
	}
	path, extraEnv := Path(), []string(nil)
	if c := childhook.Get(); c != nil {
		path, extraEnv = c.Path, c.Env
	}

	parent := ctx
	ctx, cancel := context.WithTimeout(parent, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.SysProcAttr = sysProcAttr()
	cmd.WaitDelay = waitDelay
	if extraEnv != nil {
		cmd.Env = append(os.Environ(), extraEnv...)
	}
	cmd.Stdin = bytes.NewReader(body)
	// Past MaxOutput the writer fails, which closes the pipe, and cancels
	// ctx, which kills the child.
	stdout := &capped{max: MaxOutput, full: cancel}
	stderr := &capped{max: maxStderr}
	cmd.Stdout, cmd.Stderr = stdout, stderr

	if err := cmd.Start(); err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, exec.ErrNotFound) {
			return "", false, fmt.Errorf("the HTML converter %s is missing (it is the provider process, built beside magenta-host: run `make` in the plugin's directory, or `:Lazy build magenta` under lazy.nvim): %w", path, err)
		}
		return "", false, fmt.Errorf("cannot start the HTML converter %s: %w", path, err)
	}
	err = cmd.Wait()
	if stdout.over {
		return wholeRunes(stdout.b.String()), true, nil
	}
	if err == nil {
		return stdout.b.String(), false, nil
	}
	if perr := parent.Err(); perr != nil {
		return "", false, fmt.Errorf("converting the page to %s: %w", format, perr)
	}
	if ctx.Err() != nil {
		return "", false, fmt.Errorf("converting the page to %s took longer than %s", format, timeout)
	}
	msg := strings.TrimSpace(stderr.b.String())
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == ExitUsage {
		return "", false, fmt.Errorf("the HTML converter %s does not know %q: it was built from another version than the host; run `make` again (%s)", path, args[0], msg)
	}
	if msg == "" {
		return "", false, fmt.Errorf("converting the page to %s failed: %v", format, err)
	}
	return "", false, fmt.Errorf("converting the page to %s failed (%v): %s", format, err, msg)
}

// capped keeps the first max bytes written to it. Past them it sets over,
// calls full (when set) and fails the write; a writer of the child's
// stderr has no full and drops the rest quietly instead, so that the
// child is not stopped by its diagnostics.
type capped struct {
	b    bytes.Buffer
	max  int
	over bool
	full func()
}

func (c *capped) Write(p []byte) (int, error) {
	room := c.max - c.b.Len()
	if len(p) <= room {
		return c.b.Write(p)
	}
	c.b.Write(p[:max(room, 0)])
	if c.full == nil {
		return len(p), nil
	}
	c.over = true
	c.full()
	return 0, errOutputFull
}

var errOutputFull = errors.New("the converted text passed the limit")

// wholeRunes drops an incomplete UTF-8 sequence cut at the end of s.
func wholeRunes(s string) string {
	for i := len(s) - 1; i >= 0 && i >= len(s)-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			if !utf8.FullRuneInString(s[i:]) {
				return s[:i]
			}
			break
		}
	}
	return s
}
