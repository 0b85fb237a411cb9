package remotetest

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// Target is one environment under test: its capabilities act on a
// machine that is (or runs in) a docker container the suite can look
// into.
type Target struct {
	Env *capabilities.Environment
	// Container is the container the commands run in.
	Container string
}

// Texts are the lines as "stdout: text" / "stderr: text".
func Texts(lines []capabilities.OutputLine) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l.Stream.String() + ": " + l.Text
	}
	return out
}

// lineTexts are the texts of a result's kept lines.
func lineTexts(r *capabilities.ExecResult) []string {
	var out []string
	for _, l := range append(append([]capabilities.OutputLine{}, r.Head...), r.Tail...) {
		out = append(out, l.Text)
	}
	return out
}

// Shell runs the suite of a Shell that reaches its machine through
// package posixremote's wrapper and sweep (docker, ssh); each subtest
// gets its Target from newTarget and runs in parallel with the others
// (they may share a machine: each leaves its own processes, which it
// waits to see gone). The machine needs bash, setsid, stty.
//
// Output, exit status and cwd: both streams come back, the status is the
// command's, the environment's cwd is the default, the hardening applies
// (PAGER=cat) and the host's environment does not reach the machine;
// odd quoting survives the trip; a cwd the machine lacks is ErrNotExist.
// Large output keeps the head and tail, the whole in the host's log.
// Ending the tree: a cancel and a timeout report SIGTERM and end what
// the command started there, a process that left the group with setsid
// included; a command that left one behind returns at once and the
// process ends; ten commands exiting while their child is between fork
// and exec leave nothing. Interactive: a prompt is answered through the
// Terminal and a resize reaches the command; Ctrl-C interrupts it; a
// cancel while it waits for input ends it, and what it left.
func Shell(t *testing.T, newTarget func(t *testing.T) Target) {
	// A variable of the host's only, which must not reach the machine
	// (set for good: t.Setenv cannot serve parallel tests).
	require.NoError(t, os.Setenv(hostOnly, "secret"))
	cases := []struct {
		name string
		run  func(t *testing.T, tg Target)
	}{
		{"OutputExitAndCwd", shellOutput},
		{"LargeOutput", shellLargeOutput},
		{"MissingCwd", shellMissingCwd},
		{"CancelEndsTheTree", shellCancel},
		{"Timeout", shellTimeout},
		{"SetsidChildEnds", shellSetsidChild},
		{"ExecInFlightEnds", shellExecInFlight},
		{"InteractiveAnswered", shellInteractive},
		{"InteractiveCtrlC", shellInteractiveCtrlC},
		{"InteractiveCancel", shellInteractiveCancel},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.run(t, newTarget(t))
		})
	}
}

// hostOnly is set in this process's environment by Shell.
const hostOnly = "MAGENTA_HOST_ONLY"

func opts(id string) capabilities.ExecOptions {
	return capabilities.ExecOptions{ThreadID: "t", RequestID: id}
}

func shellOutput(t *testing.T, tg Target) {
	ctx := context.Background()
	res, err := tg.Env.Shell.Execute(ctx, `echo out; echo err >&2; pwd; echo "pager=$PAGER host=${MAGENTA_HOST_ONLY-unset} bash=${BASH_VERSION:+yes} q='it'\''s' b=\\"; exit 3`,
		opts("r1"))
	require.NoError(t, err)
	assert.Equal(t, 3, res.ExitCode)
	assert.Empty(t, res.Signal)
	// Two pipes: the order between them is not kept.
	assert.ElementsMatch(t, []string{"stdout: out", "stderr: err", "stdout: " + tg.Env.Cwd,
		`stdout: pager=cat host=unset bash=yes q='it'\''s' b=\`}, Texts(res.Head))
	// The log is on the host, where get_file reads it.
	log, err := os.ReadFile(res.LogPath)
	require.NoError(t, err)
	assert.Contains(t, string(log), "pager=cat")

	o := opts("r2")
	o.Cwd = "/tmp"
	res, err = tg.Env.Shell.Execute(ctx, "pwd", o)
	require.NoError(t, err)
	assert.Equal(t, []string{"stdout: /tmp"}, Texts(res.Head))
	assert.Equal(t, 0, res.ExitCode)
}

func shellLargeOutput(t *testing.T, tg Target) {
	res, err := tg.Env.Shell.Execute(context.Background(), "i=0; while [ $i -lt 5000 ]; do i=$((i+1)); echo line $i; done", opts("big"))
	require.NoError(t, err)
	assert.Equal(t, 5000, res.TotalLines)
	require.Len(t, res.Head, capabilities.ShellHeadLines)
	require.Len(t, res.Tail, capabilities.ShellTailLines)
	assert.Equal(t, "line 1", res.Head[0].Text)
	assert.Equal(t, "line 5000", res.Tail[len(res.Tail)-1].Text)
	log, err := os.ReadFile(res.LogPath)
	require.NoError(t, err)
	assert.Contains(t, string(log), "line 2500\n")
}

func shellMissingCwd(t *testing.T, tg Target) {
	o := opts("cwd")
	o.Cwd = "nope"
	_, err := tg.Env.Shell.Execute(context.Background(), "pwd", o)
	require.ErrorIs(t, err, capabilities.ErrNotExist)
	assert.Contains(t, err.Error(), tg.Env.Cwd+"/nope")
}

func shellCancel(t *testing.T, tg Target) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := opts("cancel")
	o.OnOutput = func(l capabilities.OutputLine) {
		if l.Text == "started" {
			cancel()
		}
	}
	res, err := tg.Env.Shell.Execute(ctx, "setsid sleep 9901 & echo started; sleep 9902", o)
	require.NoError(t, err)
	assert.True(t, res.Cancelled)
	assert.Equal(t, -1, res.ExitCode)
	assert.Equal(t, "SIGTERM", res.Signal)
	WaitGone(t, tg.Container, "sleep 9901", "sleep 9902")
}

func shellTimeout(t *testing.T, tg Target) {
	o := opts("timeout")
	o.Timeout = time.Second
	res, err := tg.Env.Shell.Execute(context.Background(), "sleep 9903", o)
	require.NoError(t, err)
	assert.True(t, res.TimedOut)
	assert.Equal(t, "SIGTERM", res.Signal)
	WaitGone(t, tg.Container, "sleep 9903")
}

func shellSetsidChild(t *testing.T, tg Target) {
	start := time.Now()
	res, err := tg.Env.Shell.Execute(context.Background(), "setsid sleep 9904 & echo started", opts("bg"))
	require.NoError(t, err)
	assert.Equal(t, 0, res.ExitCode)
	assert.Equal(t, []string{"stdout: started"}, Texts(res.Head))
	assert.Less(t, time.Since(start), 20*time.Second)
	WaitGone(t, tg.Container, "sleep 9904")
}

// shellExecInFlight: each command exits while the process it left is
// still between fork and exec (its environment reads empty then); the
// sweep waits it out instead of missing it.
func shellExecInFlight(t *testing.T, tg Target) {
	var tokens []string
	for i := range 10 {
		tok := fmt.Sprintf("sleep 991%d", i)
		tokens = append(tokens, tok)
		res, err := tg.Env.Shell.Execute(context.Background(), "setsid "+tok+" &", opts(fmt.Sprint("inflight", i)))
		require.NoError(t, err)
		require.Equal(t, 0, res.ExitCode)
	}
	WaitGone(t, tg.Container, tokens...)
}

// startInteractive runs command with Interactive set on a goroutine and
// returns its Terminal and a channel with the result.
func startInteractive(t *testing.T, ctx context.Context, sh capabilities.Shell, command string) (capabilities.Terminal, <-chan *capabilities.ExecResult) {
	t.Helper()
	terms := make(chan capabilities.Terminal, 1)
	results := make(chan *capabilities.ExecResult, 1)
	go func() {
		o := opts("interactive")
		o.Interactive = true
		o.OnTerminal = func(term capabilities.Terminal) { terms <- term }
		res, err := sh.Execute(ctx, command, o)
		assert.NoError(t, err)
		results <- res
	}()
	select {
	case term := <-terms:
		return term, results
	case res := <-results:
		t.Fatalf("ended without a terminal: %+v", res)
	case <-time.After(Deadline):
		t.Fatal("OnTerminal was not called")
	}
	return nil, nil
}

func waitResult(t *testing.T, results <-chan *capabilities.ExecResult) *capabilities.ExecResult {
	t.Helper()
	select {
	case res := <-results:
		require.NotNil(t, res)
		return res
	case <-time.After(Deadline):
		t.Fatal("the interactive command did not end")
		return nil
	}
}

func waitScreen(t *testing.T, term capabilities.Terminal, want string) {
	t.Helper()
	require.Eventually(t, func() bool { return strings.Contains(strings.Join(term.Screen(), "\n"), want) },
		Deadline, 10*time.Millisecond, "screen never showed %q: %q", want, term.Screen())
}

func shellInteractive(t *testing.T, tg Target) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	term, results := startInteractive(t, ctx, tg.Env.Shell,
		`[ -t 0 ] && echo tty; read -p "Enter your name: " name && echo "Hello, $name"; `+
			`while [ "$(stty size)" != "30 77" ]; do sleep 0.05; done; echo "size $(stty size)"`)
	waitScreen(t, term, "Enter your name:")
	require.NoError(t, term.Resize(30, 77))
	_, err := term.Write([]byte("Alice\r"))
	require.NoError(t, err)
	// The client relays a resize asynchronously, and one that comes while
	// it is still starting can be lost (the docker CLI reads the size,
	// then watches for changes): until the command sees it, change the
	// size again (an unchanged size signals nothing).
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	end := time.After(Deadline)
	var res *capabilities.ExecResult
	for res == nil {
		select {
		case res = <-results:
			require.NotNil(t, res)
		case <-tick.C:
			require.NoError(t, term.Resize(31, 77))
			require.NoError(t, term.Resize(30, 77))
		case <-end:
			t.Fatalf("the interactive command did not end: %q", term.Screen())
		}
	}
	assert.True(t, res.Interactive)
	assert.Equal(t, 0, res.ExitCode)
	assert.Contains(t, lineTexts(res), "tty")
	assert.Contains(t, lineTexts(res), "Hello, Alice")
	assert.Contains(t, lineTexts(res), "size 30 77")
	WaitGone(t, tg.Container, "Enter your name")
}

func shellInteractiveCtrlC(t *testing.T, tg Target) {
	term, results := startInteractive(t, context.Background(), tg.Env.Shell, "echo ready; sleep 9905")
	waitScreen(t, term, "ready")
	_, err := term.Write([]byte("\x03"))
	require.NoError(t, err)
	res := waitResult(t, results)
	assert.False(t, res.Cancelled || res.TimedOut)
	assert.NotEqual(t, 0, res.ExitCode)
	WaitGone(t, tg.Container, "sleep 9905")
}

func shellInteractiveCancel(t *testing.T, tg Target) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	term, results := startInteractive(t, ctx, tg.Env.Shell, `setsid sleep 9906 & read -p "Continue? " x`)
	waitScreen(t, term, "Continue?")
	require.Eventually(t, term.WaitingForInput, Deadline, 20*time.Millisecond)
	cancel()
	res := waitResult(t, results)
	assert.True(t, res.Cancelled)
	assert.True(t, res.WaitingForInput)
	WaitGone(t, tg.Container, "sleep 9906", "Continue?")
}
