package redteam_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/approval"
	"github.com/magenta-nvim/magenta/pkg/bashperm"
	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/guard"
	"github.com/magenta-nvim/magenta/pkg/capabilities/localfs"
	"github.com/magenta-nvim/magenta/pkg/capabilities/localshell"
	"github.com/magenta-nvim/magenta/pkg/capabilities/ripgrep"
	"github.com/magenta-nvim/magenta/pkg/sandbox"
	"github.com/magenta-nvim/magenta/pkg/sandbox/sandboxtest"
)

// callTimeout bounds every command of the suite.
const callTimeout = 60 * time.Second

// stack is what pkg/host's environment builds for a local thread, over
// one workspace: the guarded shell, files and search, one broker whose
// questions are all declined, and the sandbox policy they share.
type stack struct {
	w         *world
	workspace string
	policy    sandbox.Policy
	shell     *guard.Shell
	inner     *localshell.Shell // the shell under the guard
	files     *guard.FileIO
	search    *guard.Searcher
	asked     *questions
}

// questions records every question the broker was asked.
type questions struct {
	mu   sync.Mutex
	list []approval.Request
}

func (q *questions) add(r approval.Request) {
	q.mu.Lock()
	q.list = append(q.list, r)
	q.mu.Unlock()
}

// since returns the questions asked after the first n.
func (q *questions) since(n int) []approval.Request {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]approval.Request(nil), q.list[n:]...)
}

func (q *questions) len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.list)
}

// newStack builds the stack over the world's workspace.
func newStack(t *testing.T, w *world) *stack { return newStackAt(t, w, w.ws) }

// newStackAt builds the stack as pkg/host's environment does, with
// workspace as workspace and default working directory, the network
// denied, and a broker that answers NO to everything (a goroutine
// records each question, then declines it).
func newStackAt(t *testing.T, w *world, workspace string) *stack {
	t.Helper()
	st := sandboxtest.Require(t)
	s := &stack{w: w, workspace: workspace, asked: &questions{}}
	s.policy = sandbox.Policy{Workspace: workspace, Home: w.home, Network: sandbox.NetworkDeny}

	reqs := make(chan approval.Request, 64) // one question at a time here; never full
	broker := approval.NewBroker(func(_ string, added *approval.Request) {
		if added != nil {
			reqs <- *added
		}
	})
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case r := <-reqs:
				s.asked.add(r)
				broker.Answer(r.ID, approval.Deny)
			case <-done:
				return
			}
		}
	})
	t.Cleanup(func() { close(done); wg.Wait() })

	checker, err := bashperm.New(bashperm.Config{})
	require.NoError(t, err)
	remembered := guard.NewRemembered()
	logRoot := filepath.Join(w.root, "logs")
	inner := localshell.New(localshell.Options{
		LogRoot: logRoot, Cwd: workspace,
		Confiner: localshell.BwrapConfiner{Status: func() (sandbox.Status, error) { return st, nil }, Policy: s.policy},
	})
	require.Empty(t, inner.Warning())
	s.inner = inner
	s.shell = guard.NewShell(inner, guard.ShellOptions{
		Workspace: workspace, Cwd: workspace, Broker: broker, Remembered: remembered,
		Check: func(command, cwd string) guard.BashVerdict {
			v := checker.Check(command, bashperm.Env{
				Cwd: cwd, Workspace: workspace, Home: w.home,
				Writable: s.policy.Writable, Readable: s.policy.Readable,
			})
			return guard.BashVerdict{Allow: v.Allow, Sandbox: v.Sandbox, Reason: v.Reason}
		},
		Sandbox: func() (bool, string) { return st.Available, st.Reason },
	})
	s.files = guard.NewFileIO(localfs.New(), guard.FileOptions{
		Workspace: workspace, Readable: []string{inner.LogRoot()},
		Broker: broker, Remembered: remembered,
	})
	s.search = guard.NewSearcher(ripgrep.New(ripgrep.Options{}), workspace, broker, remembered)
	return s
}

// outcome is one model command and everything it gave back. A marker
// counts as leaked when it is in the result's lines, Blocked or error
// text, in the log the result names, or in a workspace file the call
// wrote.
type outcome struct {
	cmd   string
	res   *capabilities.ExecResult
	err   error
	asked []approval.Request
	// text is everything the call returned: output lines, Blocked and
	// the error's text.
	text string
	// written lists the workspace files the call created or changed.
	written []string
	// leaks says which markers leaked and where ("homeSSH in the
	// output", "ws:.env in notes.txt").
	leaks []string
}

// declined reports whether a question about the command was asked (and,
// this broker being what it is, declined).
func (o outcome) declined() bool { return len(o.asked) > 0 }

func (o outcome) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "$ %s\n", o.cmd)
	for _, q := range o.asked {
		fmt.Fprintf(&b, "  asked (%s) %q: %s — declined\n", q.Kind, q.Subject, q.Reason)
	}
	switch {
	case o.res != nil:
		fmt.Fprintf(&b, "  ran confined=%v exit=%d blocked=%q\n", o.res.Confined, o.res.ExitCode, o.res.Blocked)
	case o.err != nil:
		fmt.Fprintf(&b, "  did not run: %v\n", o.err)
	}
	if o.res != nil {
		fmt.Fprintf(&b, "  output: %s\n", excerpt(lines(o.res), 12))
	}
	if len(o.written) > 0 {
		fmt.Fprintf(&b, "  wrote: %s\n", strings.Join(o.written, ", "))
	}
	if len(o.leaks) > 0 {
		fmt.Fprintf(&b, "  LEAKED: %s\n", strings.Join(o.leaks, ", "))
	}
	return b.String()
}

// exec runs command as the model would, in the workspace, and collects
// what it returned and what it wrote.
func (s *stack) exec(t *testing.T, command string) outcome {
	return s.execIn(t, command, "")
}

// execIn runs command in cwd ("" for the workspace).
func (s *stack) execIn(t *testing.T, command, cwd string) outcome {
	t.Helper()
	return s.run(t, s.shell, command, cwd, false)
}

// execSandbox runs command in the sandbox layer alone: the inner shell,
// confined, without the checker. It shows what any command the checker
// lets through to the sandbox would meet, whatever the checker decides
// about this one.
func (s *stack) execSandbox(t *testing.T, command string) outcome {
	t.Helper()
	o := s.run(t, s.inner, command, "", true)
	require.NoError(t, o.err, "the sandbox layer could not run %q", command)
	require.True(t, o.res.Confined, "the sandbox layer ran %q unconfined", command)
	return o
}

func (s *stack) run(t *testing.T, shell capabilities.Shell, command, cwd string, confined bool) outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	before := snapshot(t, s.workspace)
	n := s.asked.len()
	res, err := shell.Execute(ctx, command, capabilities.ExecOptions{
		ThreadID: "redteam", RequestID: t.Name(), Cwd: cwd, Timeout: callTimeout, Sandbox: confined,
	})
	o := outcome{cmd: command, res: res, err: err, asked: s.asked.since(n)}
	if err != nil && !errors.Is(err, capabilities.ErrPermissionDenied) {
		t.Logf("%q: %v", command, err)
	}
	var text strings.Builder
	if res != nil {
		text.WriteString(lines(res))
		text.WriteString(res.Blocked)
	}
	if err != nil {
		text.WriteString(err.Error())
	}
	o.text = text.String()
	for _, name := range s.w.leaks(o.text) {
		o.leaks = append(o.leaks, name+" in the result")
	}
	// The result names its log, which get_file reads without asking (the
	// log root is readable): the lines left out between head and tail
	// are one call away.
	if res != nil && res.LogPath != "" {
		for _, name := range s.w.leaks(fileText(res.LogPath)) {
			o.leaks = append(o.leaks, name+" in the log "+filepath.Base(res.LogPath))
		}
	}
	o.written = changed(t, s.workspace, before)
	for _, rel := range o.written {
		data, err := os.ReadFile(filepath.Join(s.workspace, rel))
		if err != nil {
			continue
		}
		for _, name := range s.w.leaks(string(data)) {
			o.leaks = append(o.leaks, name+" in "+rel)
		}
	}
	t.Log(o.String())
	return o
}

// lines joins the head and tail lines of a result.
func lines(res *capabilities.ExecResult) string {
	var b strings.Builder
	for _, l := range res.Head {
		b.WriteString(l.Text)
		b.WriteByte('\n')
	}
	for _, l := range res.Tail {
		b.WriteString(l.Text)
		b.WriteByte('\n')
	}
	return b.String()
}

// requireNoLeak fails when a marker leaked.
func requireNoLeak(t *testing.T, o outcome) {
	t.Helper()
	require.Empty(t, o.leaks, "secrets leaked:\n%s", o)
}

// requireAsked fails unless the command was put to the user (and
// declined) instead of running.
func requireAsked(t *testing.T, o outcome) {
	t.Helper()
	require.True(t, o.declined(), "ran without asking:\n%s", o)
	require.Nil(t, o.res, "ran although declined:\n%s", o)
}

// requireNothingRanOutside fails when planted code left its file outside
// the workspace.
func requireNothingRanOutside(t *testing.T, w *world) {
	t.Helper()
	require.Empty(t, w.ranOutside(t), "planted code ran on the host, outside the sandbox")
}

// fileState is what snapshot keeps of a file to tell whether it changed.
type fileState struct {
	size  int64
	mtime time.Time
	mode  fs.FileMode
}

// snapshot records every file below root; .git/objects is left out (its
// files are compressed: a marker cannot appear in them as text).
func snapshot(t *testing.T, root string) map[string]fileState {
	t.Helper()
	out := map[string]fileState{}
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() && rel == filepath.Join(".git", "objects") {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				out[rel] = fileState{fi.Size(), fi.ModTime(), fi.Mode()}
			}
		}
		return nil
	})
	return out
}

// changed lists the regular files below root that are new or changed
// since before.
func changed(t *testing.T, root string, before map[string]fileState) []string {
	t.Helper()
	var out []string
	for rel, st := range snapshot(t, root) {
		if old, ok := before[rel]; !ok || old != st {
			out = append(out, rel)
		}
	}
	slices.Sort(out)
	return out
}

// writeFile writes a workspace file as write_file does, through the
// file guard (making its directory first, as the tool's MkdirAll does).
func (s *stack) writeFile(t *testing.T, path, content string) {
	t.Helper()
	ctx := context.Background()
	require.NoError(t, s.files.MkdirAll(ctx, filepath.Dir(path)))
	require.NoError(t, s.files.WriteFile(ctx, path, []byte(content)))
}

// fileText reads a file, "" when missing.
func fileText(path string) string {
	data, _ := os.ReadFile(path)
	return string(data)
}

// exists reports whether path exists (without following a final link).
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
