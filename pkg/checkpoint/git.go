package checkpoint

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// hardening is passed as -c to every git invocation. Command-line config
// wins over every file git could read, so these hold even if our own
// config were tampered with:
//   - core.hooksPath=/dev/null: no hook can run (plumbing runs none today;
//     this keeps it so).
//   - core.fsmonitor=false: no fsmonitor hook program.
//   - core.autocrlf=false, core.safecrlf=false: bytes are stored as they
//     are on disk, never converted.
//   - core.symlinks=true, core.filemode=true, core.ignorecase=false:
//     links are stored as links, the executable bit is kept, names are
//     exact.
//   - core.attributesFile, core.excludesFile=/dev/null: the user's
//     per-user git files are not read (their config is not read at all).
//   - core.quotepath=false: names are printed raw (we use -z anyway).
//   - core.splitIndex, core.untrackedCache=false, index.sparse=false:
//     one plain index file (index.go parses it).
//   - core.looseCompression=1: staging is CPU bound; zlib level 1 is
//     much faster than the default for a little more disk (bulk staging
//     into a pack sets pack.compression=1 likewise).
//   - core.logAllRefUpdates=false: no reflogs keep pruned checkpoints.
//   - gc.auto=0: no automatic gc in the middle of a snapshot.
//
// Diffs are run with --no-ext-diff --no-textconv as well.
var hardening = []string{
	"-c", "core.hooksPath=/dev/null",
	"-c", "core.fsmonitor=false",
	"-c", "core.autocrlf=false",
	"-c", "core.safecrlf=false",
	"-c", "core.symlinks=true",
	"-c", "core.filemode=true",
	"-c", "core.ignorecase=false",
	"-c", "core.attributesFile=/dev/null",
	"-c", "core.excludesFile=/dev/null",
	"-c", "core.quotepath=false",
	"-c", "core.splitIndex=false",
	"-c", "core.untrackedCache=false",
	"-c", "index.sparse=false",
	"-c", "core.looseCompression=1",
	"-c", "core.logAllRefUpdates=false",
	"-c", "gc.auto=0",
}

// attributes is written to <git dir>/info/attributes, which outranks every
// .gitattributes in the workspace: no filter, no end-of-line or encoding
// conversion, whatever the workspace says. (A filter needs a command in
// config, which we control; this also stops the conversions that need
// none.)
const attributes = "* -text -eol -filter -ident -working-tree-encoding\n"

// gitEnv is the whole environment a git process gets: nothing named GIT_*
// is inherited (a GIT_DIR, GIT_INDEX_FILE, GIT_CONFIG_PARAMETERS or
// GIT_CONFIG_COUNT in the user's environment must not redirect or
// reconfigure us), HOME and XDG_CONFIG_HOME point into the store, and
// messages are in English.
func (s *Store) gitEnv(index string) []string {
	env := []string{
		"GIT_DIR=" + s.gitDir,
		"GIT_WORK_TREE=" + s.ws,
		"GIT_INDEX_FILE=" + index,
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_ATTR_NOSYSTEM=1",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_NO_REPLACE_OBJECTS=1",
		"GIT_LITERAL_PATHSPECS=1",
		"GIT_AUTHOR_NAME=magenta", "GIT_AUTHOR_EMAIL=magenta@localhost",
		"GIT_COMMITTER_NAME=magenta", "GIT_COMMITTER_EMAIL=magenta@localhost",
		"HOME=" + s.dir,
		"XDG_CONFIG_HOME=" + filepath.Join(s.dir, "xdg"),
		"LC_ALL=C",
	}
	for _, k := range []string{"PATH", "TMPDIR"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// gitCall describes one git run.
type gitCall struct {
	args   []string
	stdin  io.Reader
	stdout io.Writer // nil: collected and returned
	index  string    // "" means the store's index
	env    []string  // extra variables
}

// git runs one git command in the workspace with the hardened
// environment, in its own process group, SIGKILLed with the group when
// ctx ends.
//
// Git opens every .gitignore and .gitattributes on its way, and open(2)
// on a FIFO waits for a writer: a command still running after stallCheck
// makes us look for such a file, and if there is one it is killed with
// an error naming it.
func (s *Store) git(parent context.Context, c gitCall) ([]byte, error) {
	if c.index == "" {
		c.index = s.index
	}
	name := subcommand(c.args)
	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(nil)
	watch := time.AfterFunc(stallCheck, func() {
		if p, kind := findBlocker(s.ws); p != "" {
			cancel(&blockedError{cmd: name, path: p, kind: kind})
		}
	})
	defer watch.Stop()
	args := append(append([]string{}, hardening...), c.args...)
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = s.ws
	cmd.Env = append(s.gitEnv(c.index), c.env...)
	cmd.Stdin = c.stdin
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if errors.Is(err, syscall.ESRCH) {
			return os.ErrProcessDone
		}
		return err
	}
	cmd.WaitDelay = 2 * time.Second
	var out, stderr bytes.Buffer
	cmd.Stdout = &out
	if c.stdout != nil {
		cmd.Stdout = c.stdout
	}
	cmd.Stderr = &limited{b: &stderr, n: 8 << 10}
	err := cmd.Run()
	if err != nil {
		if parent.Err() != nil {
			return nil, fmt.Errorf("git %s: %w", name, parent.Err())
		}
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		ge := &gitError{cmd: name, msg: msg, code: -1}
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			ge.code = ee.ExitCode()
		}
		return out.Bytes(), ge
	}
	return out.Bytes(), nil
}

// stallCheck is how long a git command runs before findBlocker looks.
var stallCheck = time.Second

// subcommand names a git command line for errors: its first word that is
// not a -c option.
func subcommand(args []string) string {
	for i := 0; i < len(args); i++ {
		if args[i] == "-c" {
			i++
			continue
		}
		return args[i]
	}
	return "git"
}

// blockedError is a git command stopped because a FIFO or device stands
// where git opens a file.
type blockedError struct{ cmd, path, kind string }

func (e *blockedError) Error() string {
	return fmt.Sprintf("git %s: %s is a %s; git would wait on it forever", e.cmd, e.path, e.kind)
}

// gitError is a git command that failed; msg is its standard error, code
// its exit status (-1 if it did not exit).
type gitError struct {
	cmd, msg string
	code     int
}

func (e *gitError) Error() string { return "git " + e.cmd + ": " + e.msg }

// limited keeps the first n bytes written to it and drops the rest.
type limited struct {
	b *bytes.Buffer
	n int
}

func (l *limited) Write(p []byte) (int, error) {
	if room := l.n - l.b.Len(); room > 0 {
		l.b.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// splitZ splits NUL-terminated records; a missing final NUL is tolerated.
func splitZ(b []byte) []string {
	var out []string
	for len(b) > 0 {
		i := bytes.IndexByte(b, 0)
		if i < 0 {
			out = append(out, string(b))
			break
		}
		out = append(out, string(b[:i]))
		b = b[i+1:]
	}
	return out
}
