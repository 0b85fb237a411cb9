package localshell

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/procsup"
)

// interactiveRun is an interactive command running in the background.
type interactiveRun struct {
	term   chan capabilities.Terminal
	result chan *capabilities.ExecResult
}

// startInteractive runs command with Interactive set on a goroutine.
func startInteractive(t *testing.T, ctx context.Context, sh *Shell, command string, opts capabilities.ExecOptions) *interactiveRun {
	t.Helper()
	r := &interactiveRun{term: make(chan capabilities.Terminal, 1), result: make(chan *capabilities.ExecResult, 1)}
	opts.Interactive = true
	if opts.RequestID == "" {
		opts.ThreadID, opts.RequestID = "thread", "req"
	}
	opts.OnTerminal = func(term capabilities.Terminal) { r.term <- term }
	go func() {
		res, err := sh.Execute(ctx, command, opts)
		assert.NoError(t, err)
		r.result <- res
	}()
	return r
}

func (r *interactiveRun) terminal(t *testing.T) capabilities.Terminal {
	t.Helper()
	select {
	case term := <-r.term:
		return term
	case <-time.After(deadline):
		t.Fatal("OnTerminal was not called")
		return nil
	}
}

func (r *interactiveRun) wait(t *testing.T) *capabilities.ExecResult {
	t.Helper()
	select {
	case res := <-r.result:
		return res
	case <-time.After(deadline):
		t.Fatal("the interactive command did not end")
		return nil
	}
}

// waitScreen waits until the screen shows want, and fails with the last
// screen it saw.
func waitScreen(t *testing.T, term capabilities.Terminal, want string) {
	t.Helper()
	var last []string
	for end := time.Now().Add(deadline); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		if last = term.Screen(); strings.Contains(strings.Join(last, "\n"), want) {
			return
		}
	}
	t.Fatalf("screen never showed %q within %s: %q", want, deadline, last)
}

func TestInteractiveReadAnswered(t *testing.T) {
	for _, unsupervised := range []bool{false, true} {
		t.Run(map[bool]string{false: "supervised", true: "unsupervised"}[unsupervised], func(t *testing.T) {
			sh := New(Options{LogRoot: t.TempDir(), Unsupervised: unsupervised})
			r := startInteractive(t, context.Background(), sh, `read -p "Enter your name: " name && echo "Hello, $name"`, capabilities.ExecOptions{})
			term := r.terminal(t)
			waitScreen(t, term, "Enter your name:")
			_, err := term.Write([]byte("Alice\r"))
			require.NoError(t, err)
			res := r.wait(t)
			assert.True(t, res.Interactive)
			assert.Empty(t, res.NotInteractive)
			assert.Equal(t, 0, res.ExitCode)
			assert.Equal(t, []string{"Enter your name: Alice", "Hello, Alice"}, texts(res))
			<-term.Done()
			_, err = term.Write([]byte("late"))
			assert.ErrorIs(t, err, capabilities.ErrTerminalClosed)
			assert.ErrorIs(t, term.Resize(10, 10), capabilities.ErrTerminalClosed)
			log, err := os.ReadFile(res.LogPath)
			require.NoError(t, err)
			assert.Contains(t, string(log), "stdout: Hello, Alice\n")
		})
	}
}

func TestInteractiveCtrlC(t *testing.T) {
	for _, unsupervised := range []bool{false, true} {
		t.Run(map[bool]string{false: "supervised", true: "unsupervised"}[unsupervised], func(t *testing.T) {
			sh := New(Options{LogRoot: t.TempDir(), Unsupervised: unsupervised})
			r := startInteractive(t, context.Background(), sh, "echo ready; sleep 1000", capabilities.ExecOptions{})
			term := r.terminal(t)
			waitScreen(t, term, "ready")
			_, err := term.Write([]byte("\x03"))
			require.NoError(t, err)
			res := r.wait(t)
			assert.False(t, res.Cancelled || res.TimedOut)
			assert.Equal(t, "SIGINT", res.Signal)
		})
	}
}

func TestInteractiveTextIsTheEmulatorsFinalState(t *testing.T) {
	cmd := `printf 'a\033[31mred\033[0m\n'; for i in 10 50 100; do printf '\rprogress %3d%%' $i; done; echo; printf 'abc\033[2Dx\n'`
	r := startInteractive(t, context.Background(), newShell(t), cmd, capabilities.ExecOptions{})
	res := r.wait(t)
	assert.Equal(t, []string{"ared", "progress 100%", "axc"}, texts(res))
	log, err := os.ReadFile(res.LogPath)
	require.NoError(t, err)
	assert.NotContains(t, string(log), "\x1b")
	assert.Contains(t, string(log), "stdout: progress 100%\n")

	// OnOutput sees the same lines.
	var mu sync.Mutex
	var streamed []string
	opts := capabilities.ExecOptions{OnOutput: func(l capabilities.OutputLine) {
		mu.Lock()
		streamed = append(streamed, l.Text)
		mu.Unlock()
	}}
	res = startInteractive(t, context.Background(), newShell(t), cmd, opts).wait(t)
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, texts(res), streamed)
}

func TestInteractiveScrolledLinesAllKept(t *testing.T) {
	res := startInteractive(t, context.Background(), newShell(t), "seq 1 5000", capabilities.ExecOptions{}).wait(t)
	assert.Equal(t, 5000, res.TotalLines)
	assert.Equal(t, "1", res.Head[0].Text)
	assert.Equal(t, "5000", res.Tail[len(res.Tail)-1].Text)
}

func TestInteractiveResize(t *testing.T) {
	r := startInteractive(t, context.Background(), newShell(t), "read -r _; stty size", capabilities.ExecOptions{})
	term := r.terminal(t)
	require.NoError(t, term.Resize(30, 77))
	_, err := term.Write([]byte("\r"))
	require.NoError(t, err)
	res := r.wait(t)
	assert.Contains(t, texts(res), "30 77")
}

func TestInteractiveWaitingForInput(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := startInteractive(t, ctx, newShell(t), `read -p "Continue? " x`, capabilities.ExecOptions{})
	term := r.terminal(t)
	assert.False(t, term.WaitingForInput()) // not silent long enough yet
	require.Eventually(t, term.WaitingForInput, deadline, 20*time.Millisecond)
	cancel()
	res := r.wait(t)
	assert.True(t, res.Cancelled)
	assert.True(t, res.WaitingForInput)
	assert.False(t, term.WaitingForInput())
}

func TestInteractiveBusyIsNotWaiting(t *testing.T) {
	res := startInteractive(t, context.Background(), newShell(t), "echo 'Continue?'; sleep 600",
		capabilities.ExecOptions{Timeout: 300 * time.Millisecond}).wait(t)
	assert.True(t, res.TimedOut)
	assert.False(t, res.WaitingForInput, "not silent for TerminalPromptSilence")
}

func TestInteractiveFallbackWithoutPTY(t *testing.T) {
	sh := New(Options{LogRoot: t.TempDir(), OpenPTY: func() (*os.File, *os.File, error) {
		return nil, nil, errors.New("no ptys left")
	}})
	called := false
	res := run(t, sh, "echo hi; read -r x; echo read=$?", capabilities.ExecOptions{Interactive: true,
		OnTerminal: func(capabilities.Terminal) { called = true }})
	assert.False(t, called)
	assert.False(t, res.Interactive)
	assert.Contains(t, res.NotInteractive, "no pseudo-terminal (no ptys left)")
	assert.Equal(t, []string{"stdout: hi", "stdout: read=1"}, lines(res))
}

// A confined interactive command gets a PTY: the confiner is asked for
// its terminal prefix, and the command sees a terminal.
func TestInteractiveConfinedGetsATerminal(t *testing.T) {
	conf := &envConfiner{}
	sh := New(Options{LogRoot: t.TempDir(), Confiner: conf})
	called := false
	res := run(t, sh, "test -t 0 && test -t 1 && echo tty", capabilities.ExecOptions{Interactive: true, Sandbox: true,
		OnTerminal: func(capabilities.Terminal) { called = true }})
	assert.True(t, called)
	assert.True(t, res.Confined)
	assert.True(t, res.Interactive)
	assert.Empty(t, res.NotInteractive)
	assert.True(t, conf.terminal)
	assert.Contains(t, strings.Join(lines(res), "\n"), "tty")
}

// envConfiner "confines" with env(1): enough to see which path ran.
type envConfiner struct{ terminal bool }

func (c *envConfiner) Confine(_ string, env []string, terminal bool) (Confinement, error) {
	c.terminal = terminal
	return Confinement{Argv: []string{"env"}, Env: env}, nil
}
func (*envConfiner) Blocked([]byte, int) string { return "" }

func TestInteractiveSubscribeReplay(t *testing.T) {
	r := startInteractive(t, context.Background(), newShell(t), "echo first-output; read -r _; echo second-output", capabilities.ExecOptions{})
	term := r.terminal(t)
	waitScreen(t, term, "first-output")
	var mu sync.Mutex
	var later []byte
	replay, cancel := term.Subscribe(func(c []byte) {
		mu.Lock()
		later = append(later, c...)
		mu.Unlock()
	})
	defer cancel()
	assert.Contains(t, string(replay), "first-output\r\n")
	_, err := term.Write([]byte("x\r"))
	require.NoError(t, err)
	r.wait(t)
	<-term.Done()
	mu.Lock()
	defer mu.Unlock()
	assert.Contains(t, string(later), "second-output")
	assert.NotContains(t, string(later), "first-output")
	replay, _ = term.Subscribe(func([]byte) { t.Error("called after the end") })
	assert.Contains(t, string(replay), "second-output")
}

func TestInteractiveTimeoutEndsEverything(t *testing.T) {
	cmd, markers := escapingCommand(7750, "sleep 600")
	seen := make(chan struct{})
	go func() {
		defer close(seen)
		assert.Eventually(t, func() bool { return len(markerPids(t, markers...)) == len(markers) }, deadline, 10*time.Millisecond)
	}()
	r := startInteractive(t, context.Background(), newShell(t), cmd, capabilities.ExecOptions{Timeout: 5 * time.Second})
	res := r.wait(t)
	<-seen
	assert.True(t, res.TimedOut)
	assert.True(t, res.Interactive)
	waitMarkers(t, false, markers...)
}

func TestInteractiveCancelEndsEverything(t *testing.T) {
	for _, unsupervised := range []bool{false, true} {
		t.Run(map[bool]string{false: "supervised", true: "unsupervised"}[unsupervised], func(t *testing.T) {
			base := 7760
			if unsupervised {
				base = 7770
			}
			cmd, markers := escapingCommand(base, "sleep 600")
			if unsupervised {
				// Without supervisor only the session's group is ended:
				// the escapees are the documented limit.
				cmd, markers = "sleep "+markers[4]+" & sleep 600", markers[4:]
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			sh := New(Options{LogRoot: t.TempDir(), Unsupervised: unsupervised})
			r := startInteractive(t, ctx, sh, cmd, capabilities.ExecOptions{})
			term := r.terminal(t)
			waitMarkers(t, true, markers...)
			cancel()
			res := r.wait(t)
			assert.True(t, res.Cancelled)
			assert.False(t, res.WaitingForInput)
			waitMarkers(t, false, markers...)
			select {
			case <-term.Done():
			default:
				t.Error("Done not closed when Execute returned")
			}
		})
	}
}

// TestInteractiveNoLeakedDescriptors runs many interactive commands and
// checks the process holds no more descriptors than before: the PTY
// master and slave, the emulator's pipe and the status pipe are all
// closed on every path.
func TestInteractiveNoLeakedDescriptors(t *testing.T) {
	// Most runs unsupervised: re-executing a race-enabled test binary as
	// supervisor costs ~0.4 s a run; every tenth is supervised.
	sh, supervised := New(Options{LogRoot: t.TempDir(), Unsupervised: true}), newShell(t)
	count := func() int {
		ents, err := os.ReadDir("/proc/self/fd")
		require.NoError(t, err)
		return len(ents)
	}
	// One run first: lazily opened descriptors (epoll) are not leaks.
	startInteractive(t, context.Background(), sh, "echo warm", capabilities.ExecOptions{}).wait(t)
	startInteractive(t, context.Background(), supervised, "echo warm", capabilities.ExecOptions{}).wait(t)
	// Counted with the supervisors settled: an idle spare's socket is
	// the host's steady state, not a leak (procsup.Settle).
	procsup.Settle()
	before := count()
	for i := range 200 {
		ctx, cancel := context.WithCancel(context.Background())
		cmd := "echo run"
		if i%4 == 3 {
			cmd = "echo ready; sleep 600"
		}
		shell := sh
		if i%10 == 0 {
			shell = supervised
		}
		r := startInteractive(t, ctx, shell, cmd, capabilities.ExecOptions{})
		term := r.terminal(t)
		if i%4 == 3 {
			waitScreen(t, term, "ready")
			cancel()
		}
		res := r.wait(t)
		cancel()
		require.True(t, res.Interactive)
	}
	procsup.Settle()
	assert.Equal(t, before, count())
}

func TestLooksLikePrompt(t *testing.T) {
	for screen, want := range map[string]bool{
		"Enter your name:":           true,
		"Continue?":                  true,
		"output\n>":                  true,
		"user@host:~$":               true,
		"root@host:/#":               true,
		"Choose [1-3]":               true,
		"Proceed (y/n) then":         true,
		"Overwrite? [Y/n] ":          true,
		"Password for alice@example": true,
		"(default: 3)":               true,
		"Downloading 45%":            false,
		"":                           false,
		"compiling...":               false,
		"Enter your name:\n\n   \n":  true,
		"Name:\nworking":             false,
	} {
		assert.Equal(t, want, looksLikePrompt(strings.Split(strings.ReplaceAll(screen, "\\n", "\n"), "\n")), screen)
	}
}

// TestInteractiveTerminalQueriesAnswered: a command that asks the
// terminal where its cursor is gets the emulator's answer (without the
// reply copier the emulator would block and the command hang).
func TestInteractiveTerminalQueriesAnswered(t *testing.T) {
	// Echo off before asking: the answer may come back before read
	// would turn it off.
	cmd := `stty -echo; printf 'abc\033[6n'; IFS= read -r -d R pos; stty echo; echo; echo "cursor ${pos#*[}"`
	res := startInteractive(t, context.Background(), newShell(t), cmd, capabilities.ExecOptions{Timeout: deadline}).wait(t)
	assert.False(t, res.TimedOut)
	assert.Equal(t, []string{"abc", "cursor 1;4"}, texts(res))
}

// TestInteractiveAlternateScreen: a full-screen program's screen is
// gone once it leaves the alternate screen, as in a terminal.
func TestInteractiveAlternateScreen(t *testing.T) {
	cmd := `echo before; printf '\033[?1049h\033[Hfull screen'; printf '\033[?1049l'; echo after`
	res := startInteractive(t, context.Background(), newShell(t), cmd, capabilities.ExecOptions{}).wait(t)
	assert.Equal(t, []string{"before", "after"}, texts(res))
}

// TestInteractiveEscapeeHoldingTheSlaveDoesNotHang: unsupervised, a
// process that left the session survives with the PTY slave as its
// stdout; Execute still returns at once (the session leader's exit hangs
// the terminal up, and past that the drain stops on silence).
func TestInteractiveEscapeeHoldingTheSlaveDoesNotHang(t *testing.T) {
	sh := New(Options{LogRoot: t.TempDir(), Unsupervised: true})
	t.Cleanup(func() {
		for _, pids := range markerPids(t, "7790") {
			for _, pid := range pids {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	start := time.Now()
	res := startInteractive(t, context.Background(), sh, "setsid sleep 7790 & echo ok", capabilities.ExecOptions{}).wait(t)
	assert.Less(t, time.Since(start), 5*time.Second)
	assert.Equal(t, 0, res.ExitCode)
	assert.Equal(t, []string{"ok"}, texts(res))
}

// TestInteractiveHostileSequencesDoNotHoldUpTheCall: sequences that
// make the emulator work in proportion to a parameter (repeat the last
// character 99999999 times: 38 s each unclamped) are cut down.
func TestInteractiveHostileSequencesDoNotHoldUpTheCall(t *testing.T) {
	cmd := `printf 'a'; for i in $(seq 20); do printf '\033[99999999b\033[99999999I'; done; printf '\033[H\033[2Jdone\n'`
	res := startInteractive(t, context.Background(), newShell(t), cmd, capabilities.ExecOptions{Timeout: deadline}).wait(t)
	assert.False(t, res.TimedOut)
	assert.Contains(t, texts(res), "done")
}

// TestInteractiveQueryFloodDoesNotBlock: a command that asks the terminal
// for its cursor position over and over without reading the answers
// fills its input queue; the answers are dropped, the screen stays
// readable and the command's output keeps flowing. ("flooded" starts a
// line: the echoed answers fill the lines before it, and how many were
// dropped — it varies with load — decides where a line wraps.)
func TestInteractiveQueryFloodDoesNotBlock(t *testing.T) {
	r := startInteractive(t, context.Background(), newShell(t),
		`for i in $(seq 3000); do printf '\033[6n'; done; stty -echo; printf '\nflooded\n'; sleep 600`, capabilities.ExecOptions{})
	term := r.terminal(t)
	waitScreen(t, term, "flooded")
	_, err := term.Write([]byte("\x03"))
	require.NoError(t, err)
	res := r.wait(t)
	assert.Equal(t, "SIGINT", res.Signal)
}

// A person typing into an interactive command is not cut off by its
// timeout: it cannot end the command within InputGrace of the last
// keystroke, and does once the grace has passed in silence.
func TestInteractiveTypingHoldsOffTheTimeout(t *testing.T) {
	const timeout = 300 * time.Millisecond
	sh := New(Options{LogRoot: t.TempDir()}) // the default grace: a minute
	r := startInteractive(t, context.Background(), sh, `read -p "Password: " pw && echo "got $pw"`, capabilities.ExecOptions{Timeout: timeout})
	term := r.terminal(t)
	_, err := term.Write([]byte("s")) // the first keystroke, at once
	require.NoError(t, err)
	select {
	case res := <-r.result:
		t.Fatalf("the command ended while the user was typing: %+v", res)
	case <-time.After(timeout + 500*time.Millisecond): // well past the timeout
	}
	_, err = term.Write([]byte("ecret\r"))
	require.NoError(t, err)
	res := r.wait(t)
	assert.False(t, res.TimedOut)
	assert.Equal(t, 0, res.ExitCode)
	assert.Contains(t, texts(res), "got secret")

	const grace = 500 * time.Millisecond
	sh = New(Options{LogRoot: t.TempDir(), InputGrace: grace})
	r = startInteractive(t, context.Background(), sh, `read -p "Password: " pw`, capabilities.ExecOptions{Timeout: 100 * time.Millisecond})
	term = r.terminal(t)
	_, err = term.Write([]byte("s"))
	require.NoError(t, err)
	res = r.wait(t)
	assert.True(t, res.TimedOut, "silent for the grace after the last keystroke")
	assert.GreaterOrEqual(t, res.Duration, grace)
}
