package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/goldentest"
	"github.com/magenta-nvim/magenta/pkg/headless"
	"github.com/magenta-nvim/magenta/pkg/nvimtest"
	"github.com/magenta-nvim/magenta/pkg/proctest"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
	"github.com/magenta-nvim/magenta/pkg/sandbox/sandboxtest"
	"github.com/magenta-nvim/magenta/pkg/threadstore"
)

// headlessRun is one `magenta-host run` of the built binary in a
// workspace of its own, with its own XDG directories and a config file
// whose profile talks to the scripted model.
type headlessRun struct {
	t      *testing.T
	bin    string
	work   string // the workspace (cwd)
	xdg    string // XDG_*_HOME live below
	config string
	env    []string
	// exited is closed when the last started run ended; stderr is what it
	// printed there so far.
	exited <-chan struct{}
	stderr func() string
}

// newRun prepares a run against srv; extra is merged into the options
// (a JSON object's members, without braces).
func newRun(t *testing.T, bin string, srv *providertest.Server, extra string) *headlessRun {
	t.Helper()
	r := &headlessRun{t: t, bin: bin, work: t.TempDir(), xdg: t.TempDir()}
	r.config = filepath.Join(r.xdg, "config.json")
	opts := fmt.Sprintf(`{"profiles": [{"name": "wire", "provider": "anthropic", "model": "claude-test", "baseUrl": %q, "apiKeyEnvVar": "MAGENTA_E2E_KEY"}],
  "shell": {"logRoot": %q}`, srv.URL, filepath.Join(r.xdg, "logs"))
	if extra != "" {
		opts += ",\n  " + extra
	}
	require.NoError(t, os.WriteFile(r.config, []byte(opts+"}\n"), 0o600))
	r.env = append(os.Environ(), "MAGENTA_E2E_KEY=test-key", "HOME="+r.xdg)
	for _, x := range []string{"CONFIG", "DATA", "STATE", "CACHE"} {
		r.env = append(r.env, "XDG_"+x+"_HOME="+filepath.Join(r.xdg, strings.ToLower(x)))
	}
	return r
}

// cmd is the command for args after "run" (the config file first).
func (r *headlessRun) cmd(args ...string) *exec.Cmd {
	c := exec.Command(r.bin, append([]string{"run", "--config", r.config}, args...)...)
	c.Dir, c.Env = r.work, r.env
	return c
}

// result of a finished run.
type runResult struct {
	code           int
	stdout, stderr string
}

// start runs the command in the background; wait collects it.
func (r *headlessRun) start(stdin string, args ...string) func() runResult {
	r.t.Helper()
	c := r.cmd(args...)
	var out, errOut bytes.Buffer
	var mu sync.Mutex // errOut is read while the run writes it
	c.Stdout, c.Stderr = &out, lockedWriter{&mu, &errOut}
	if stdin != "" {
		c.Stdin = strings.NewReader(stdin)
	}
	require.NoError(r.t, c.Start())
	done := make(chan struct{})
	go func() { _ = c.Wait(); close(done) }()
	r.t.Cleanup(func() { _ = c.Process.Kill(); <-done })
	stderr := func() string {
		mu.Lock()
		defer mu.Unlock()
		return errOut.String()
	}
	r.exited, r.stderr = done, stderr
	return func() runResult {
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			r.t.Fatalf("the run did not end; stderr:\n%s", stderr())
		}
		return runResult{code: c.ProcessState.ExitCode(), stdout: out.String(), stderr: errOut.String()}
	}
}

// lockedWriter writes to w under mu (a run's stderr, read while it runs).
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// events parses --json output, checking every line is an event of
// schema v1.
func events(t *testing.T, stdout string) []headless.Event {
	t.Helper()
	var out []headless.Event
	for _, line := range strings.Split(strings.TrimSuffix(stdout, "\n"), "\n") {
		var ev headless.Event
		require.NoError(t, json.Unmarshal([]byte(line), &ev), line)
		require.Equal(t, headless.SchemaVersion, ev.V, line)
		out = append(out, ev)
	}
	return out
}

// normalize replaces what changes from run to run (thread ids, temp
// directories) with stable names.
func normalize(s string, evs []headless.Event, dirs map[string]string) string {
	ids := map[string]string{}
	for _, ev := range evs {
		if ev.Thread != "" && ids[ev.Thread] == "" {
			ids[ev.Thread] = fmt.Sprintf("<thread%d>", len(ids)+1)
		}
	}
	for id, name := range ids {
		s = strings.ReplaceAll(s, id, name)
	}
	for dir, name := range dirs {
		s = strings.ReplaceAll(s, dir, name)
	}
	return s
}

// scriptToolTurn answers a get_file of notes.txt, then a final reply.
func scriptToolTurn(t *testing.T, srv *providertest.Server) {
	c := srv.Next(t)
	c.Text("Reading it. ")
	c.ToolUse("toolu_1", "get_file", map[string]string{"path": "notes.txt"})
	c.Stop("tool_use")
	c = srv.Next(t)
	require.Len(t, c.Messages, 3)
	assert.Contains(t, strings.Join(c.Messages[2].Texts(), ""), "buy milk")
	c.Text("The note says: ")
	c.Text("buy milk.")
	c.Stop("end_turn")
}

func TestHeadlessRun(t *testing.T) {
	bin := nvimtest.HostBinary(t)

	// A tool-using turn with --json: the event stream is golden.
	t.Run("json tool turn", func(t *testing.T) {
		srv := providertest.NewServer(t)
		r := newRun(t, bin, srv, `"sandbox": {"enabled": false}`)
		require.NoError(t, os.WriteFile(filepath.Join(r.work, "notes.txt"), []byte("buy milk\n"), 0o600))
		wait := r.start("", "--json", "what does notes.txt say?")
		scriptToolTurn(t, srv)
		res := wait()
		require.Equal(t, headless.ExitOK, res.code, res.stderr)
		evs := events(t, res.stdout)
		assert.Equal(t, headless.EventStart, evs[0].Type)
		last := evs[len(evs)-1]
		assert.Equal(t, headless.StatusSuccess, last.Status)
		assert.Equal(t, "The note says: buy milk.", last.Text)
		goldentest.Assert(t, "testdata/run_tool_turn.jsonl", normalize(res.stdout, evs, map[string]string{r.work: "<cwd>"}))
	})

	// The same turn as text, with the prompt on stdin: the reply on
	// stdout, the tool call on stderr.
	t.Run("text tool turn from stdin", func(t *testing.T) {
		srv := providertest.NewServer(t)
		r := newRun(t, bin, srv, `"sandbox": {"enabled": false}`)
		require.NoError(t, os.WriteFile(filepath.Join(r.work, "notes.txt"), []byte("buy milk\n"), 0o600))
		wait := r.start("what does notes.txt say?\n")
		c := srv.Next(t)
		assert.Equal(t, []string{"what does notes.txt say?"}, c.Messages[0].Texts())
		c.Text("Reading it. ")
		c.ToolUse("toolu_1", "get_file", map[string]string{"path": "notes.txt"})
		c.Stop("tool_use")
		srv.Next(t).Reply("The note says: buy milk.")
		res := wait()
		require.Equal(t, headless.ExitOK, res.code, res.stderr)
		goldentest.Assert(t, "testdata/run_tool_turn.txt", res.stdout)
		assert.Contains(t, res.stderr, `» get_file {"path":"notes.txt"}`)
		assert.Contains(t, res.stderr, "✓ get_file")
	})

	// A command that would ask is declined (the default --approve), and
	// the model is told why with the run's own words.
	t.Run("declined approval", func(t *testing.T) {
		srv := providertest.NewServer(t)
		r := newRun(t, bin, srv, `"sandbox": {"enabled": false}`)
		wait := r.start("", "--json", "make a file")
		c := srv.Next(t)
		c.ToolUse("toolu_1", "bash_command", map[string]string{"command": "touch made.txt"})
		c.Stop("tool_use")
		c = srv.Next(t)
		result := strings.Join(c.Messages[2].Texts(), "")
		assert.Contains(t, result, headless.DeclinedSandbox)
		c.Reply("I could not.")
		res := wait()
		require.Equal(t, headless.ExitOK, res.code, res.stderr)
		assert.NoFileExists(t, filepath.Join(r.work, "made.txt"))
		var approval *headless.Event
		for _, ev := range events(t, res.stdout) {
			if ev.Type == headless.EventApproval {
				approval = &ev
			}
		}
		require.NotNil(t, approval, res.stdout)
		assert.Equal(t, "no", approval.Decision)
		assert.Equal(t, "touch made.txt", approval.Subject)
		assert.Equal(t, "toolu_1", approval.ToolCall)
	})

	// With the sandbox on (the default), what it confines runs without
	// asking; --approve=never declines it.
	t.Run("sandbox confines, never declines", func(t *testing.T) {
		sandboxtest.Require(t)
		for _, c := range []struct {
			approve string
			made    bool
		}{{"sandbox", true}, {"never", false}} {
			srv := providertest.NewServer(t)
			r := newRun(t, bin, srv, "")
			wait := r.start("", "--json", "--approve="+c.approve, "make a file")
			call := srv.Next(t)
			call.ToolUse("toolu_1", "bash_command", map[string]string{"command": "touch made.txt"})
			call.Stop("tool_use")
			call = srv.Next(t)
			result := strings.Join(call.Messages[2].Texts(), "")
			call.Reply("Done.")
			res := wait()
			require.Equal(t, headless.ExitOK, res.code, res.stderr)
			if c.made {
				assert.FileExists(t, filepath.Join(r.work, "made.txt"), result)
				assert.NotContains(t, res.stdout, `"type":"approval"`)
			} else {
				assert.NoFileExists(t, filepath.Join(r.work, "made.txt"))
				assert.Contains(t, result, headless.DeclinedNever)
			}
		}
	})

	// --approve=always answers yes.
	t.Run("approve always", func(t *testing.T) {
		srv := providertest.NewServer(t)
		r := newRun(t, bin, srv, `"sandbox": {"enabled": false}`)
		wait := r.start("", "--approve=always", "make a file")
		c := srv.Next(t)
		c.ToolUse("toolu_1", "bash_command", map[string]string{"command": "touch made.txt"})
		c.Stop("tool_use")
		srv.Next(t).Reply("Made.")
		res := wait()
		require.Equal(t, headless.ExitOK, res.code, res.stderr)
		assert.FileExists(t, filepath.Join(r.work, "made.txt"))
		assert.Contains(t, res.stderr, "? bash touch made.txt: yes")
	})

	// The config file's hooks run as setup()'s do: a PreToolUse hook
	// vetoes the call, and the model reads why.
	t.Run("pre tool use hook", func(t *testing.T) {
		srv := providertest.NewServer(t)
		r := newRun(t, bin, srv, `"sandbox": {"enabled": false}, "hooks": {"PreToolUse": [{"matcher": "bash_command", "hooks": [{"type": "command", "command": "echo no commands today >&2; exit 2"}]}]}`)
		wait := r.start("", "--approve=always", "list")
		c := srv.Next(t)
		c.ToolUse("toolu_1", "bash_command", map[string]string{"command": "touch made.txt"})
		c.Stop("tool_use")
		c = srv.Next(t)
		assert.Contains(t, strings.Join(c.Messages[2].Texts(), ""), "no commands today")
		c.Reply("Blocked.")
		res := wait()
		require.Equal(t, headless.ExitOK, res.code, res.stderr)
		assert.NoFileExists(t, filepath.Join(r.work, "made.txt"))
	})

	// --max-cost: the first reply's cost passes the budget; the run
	// stops with its own exit code.
	t.Run("max cost", func(t *testing.T) {
		srv := providertest.NewServer(t)
		r := newRun(t, bin, srv, `"sandbox": {"enabled": false}`)
		// $1 per input token: the fake's 10 input tokens cost $10.
		cfg, _ := os.ReadFile(r.config)
		cfg = bytes.Replace(cfg, []byte(`"apiKeyEnvVar"`), []byte(`"pricing": {"input": 1000000, "output": 0}, "apiKeyEnvVar"`), 1)
		require.NoError(t, os.WriteFile(r.config, cfg, 0o600))
		wait := r.start("", "--json", "--max-cost", "5", "go")
		c := srv.Next(t)
		c.ToolUse("toolu_1", "bash_command", map[string]string{"command": "ls"})
		c.Stop("tool_use")
		res := wait()
		assert.Equal(t, headless.ExitBudget, res.code, res.stderr)
		evs := events(t, res.stdout)
		last := evs[len(evs)-1]
		assert.Equal(t, headless.StatusBudget, last.Status)
		assert.Contains(t, last.Error, "passed --max-cost")
		require.NotNil(t, last.Usage)
		assert.InDelta(t, 10.0, last.Usage.Cost, 0.001)
	})

	// --max-turns 1: a reply that asks for tools ends the run.
	t.Run("max turns", func(t *testing.T) {
		srv := providertest.NewServer(t)
		r := newRun(t, bin, srv, `"sandbox": {"enabled": false}`)
		wait := r.start("", "--max-turns", "1", "go")
		c := srv.Next(t)
		c.ToolUse("toolu_1", "bash_command", map[string]string{"command": "ls"})
		c.Stop("tool_use")
		res := wait()
		assert.Equal(t, headless.ExitBudget, res.code, res.stderr)
		assert.Contains(t, res.stderr, "--max-turns 1")
	})

	// SIGINT while a command runs aborts like :Magenta abort: the
	// command's process is gone when the run has exited.
	t.Run("sigint mid-command", func(t *testing.T) {
		srv := providertest.NewServer(t)
		r := newRun(t, bin, srv, `"sandbox": {"enabled": false}`)
		c := r.cmd("--json", "--approve=always", "wait")
		stdout, err := c.StdoutPipe()
		require.NoError(t, err)
		var errOut bytes.Buffer
		c.Stderr = &errOut
		require.NoError(t, c.Start())
		t.Cleanup(func() { _ = c.Process.Kill() })
		call := srv.Next(t)
		call.ToolUse("toolu_1", "bash_command", map[string]string{"command": "sleep 7901"})
		call.Stop("tool_use")
		lines := bufio.NewScanner(stdout)
		var seen []string
		for lines.Scan() {
			seen = append(seen, lines.Text())
			if strings.Contains(lines.Text(), `"type":"toolCall"`) {
				break
			}
		}
		require.True(t, waitUntil(10*time.Second, func() bool { return proctest.CommandRunning("sleep", "7901") }), "the command never ran")
		require.NoError(t, c.Process.Signal(syscall.SIGINT))
		rest, _ := io.ReadAll(stdout)
		require.NoError(t, ignoreExit(c.Wait()))
		assert.Equal(t, headless.ExitInterrupted, c.ProcessState.ExitCode(), errOut.String())
		assert.False(t, proctest.CommandRunning("sleep", "7901"), "the command outlived the run")
		evs := events(t, strings.Join(seen, "\n")+"\n"+string(rest))
		assert.Equal(t, headless.StatusInterrupted, evs[len(evs)-1].Status)
	})

	// A failing model ends the run with the model-error code.
	t.Run("model error", func(t *testing.T) {
		srv := providertest.NewServer(t)
		r := newRun(t, bin, srv, "")
		cfg, _ := os.ReadFile(r.config)
		cfg = bytes.Replace(cfg, []byte(srv.URL), []byte(srv.URL+"/nowhere"), 1)
		require.NoError(t, os.WriteFile(r.config, cfg, 0o600))
		res := r.start("", "--json", "hi")()
		assert.Equal(t, headless.ExitModelError, res.code, res.stderr)
		evs := events(t, res.stdout)
		assert.Equal(t, headless.StatusModelError, evs[len(evs)-1].Status)
		assert.NotEmpty(t, evs[len(evs)-1].Error)
	})

	// A missing API key is a clear error before anything starts.
	t.Run("missing api key", func(t *testing.T) {
		srv := providertest.NewServer(t)
		r := newRun(t, bin, srv, "")
		r.env = append(r.env, "MAGENTA_E2E_KEY=")
		res := r.start("", "hi")()
		assert.Equal(t, headless.ExitUsage, res.code)
		assert.Contains(t, res.stderr, `profile "wire" needs an API key: set the environment variable MAGENTA_E2E_KEY`)
	})

	// An invalid config file: every problem named, usage exit code.
	t.Run("invalid config", func(t *testing.T) {
		srv := providertest.NewServer(t)
		r := newRun(t, bin, srv, `"sandbox": {"network": "maybe"}, "bogus": 1, "shell": {"maxTimeout": "long"}`)
		res := r.start("", "hi")()
		assert.Equal(t, headless.ExitUsage, res.code)
		for _, want := range []string{"3 problems", "unknown option 'bogus'", "option 'shell.maxTimeout'", "sandbox.network"} {
			assert.Contains(t, res.stderr, want)
		}
		res = r.start("", "--approve=sometimes", "hi")()
		assert.Equal(t, headless.ExitUsage, res.code)
	})
}

// ignoreExit drops the error of a non-zero exit (the code is checked).
func ignoreExit(err error) error {
	if _, ok := err.(*exec.ExitError); ok {
		return nil
	}
	return err
}

// --thread continues a thread made in a real Neovim (the same store):
// the whole history goes with the new message, and the thread's log
// holds the run's messages after it.
func TestHeadlessRunContinuesNeovimThread(t *testing.T) {
	bin := nvimtest.HostBinary(t)
	bins := nvimtest.Binaries()
	if len(bins) == 0 {
		t.Skip("no Neovim found: install it or set MAGENTA_TEST_NVIMS")
	}
	srv := providertest.NewServer(t)
	dataDir, work := t.TempDir(), t.TempDir()
	n := startSaving(t, bins[0], bin, srv, dataDir, work)
	n.Command("Magenta toggle")
	n.WaitForText("display", "# New thread")
	send(n, "remember the word kiwi")
	srv.Next(t).Reply("Remembered.")
	n.WaitForText("display", "Remembered.")
	n.WaitForText("display", "ready")
	pid := hostPid(n)
	_ = n.V.Close()
	n.WaitFor("the host to exit", func() bool { return syscall.Kill(pid, 0) != nil }, func() string { return "" })
	logs, err := filepath.Glob(filepath.Join(storeDir(t, dataDir), "*.jsonl"))
	require.NoError(t, err)
	require.Len(t, logs, 1)
	id := strings.TrimSuffix(filepath.Base(logs[0]), ".jsonl")

	r := newRun(t, bin, srv, `"sandbox": {"enabled": false}`)
	r.work = work
	r.env = append(r.env, "XDG_DATA_HOME="+dataDir)
	wait := r.start("", "--json", "--thread", id[:13], "which word?")
	// Longer than Next's 10 s: a process that starts the provider process
	// on a machine busy with the whole suite (CI once took longer).
	c := srv.NextWhile(t, 30*time.Second, r.exited, r.stderr)
	require.Len(t, c.Messages, 3, "the saved history goes with the message")
	assert.Equal(t, []string{"remember the word kiwi"}, c.Messages[0].Texts())
	assert.Equal(t, []string{"which word?"}, c.Messages[2].Texts())
	c.Reply("Kiwi.")
	res := wait()
	require.Equal(t, headless.ExitOK, res.code, res.stderr)
	evs := events(t, res.stdout)
	assert.Equal(t, id, evs[0].Thread)
	assert.True(t, evs[0].Resumed)

	store, err := threadstore.Open(filepath.Join(dataDir, "nvim"), work, func(string) {})
	require.NoError(t, err)
	saved, err := store.Load(id)
	require.NoError(t, err)
	assert.Len(t, saved.Messages, 4, "the run's messages are saved with the thread")
}
