package localshell

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

func newShell(t testing.TB) *Shell {
	t.Helper()
	return New(Options{LogRoot: t.TempDir()})
}

func run(t testing.TB, sh *Shell, command string, opts capabilities.ExecOptions) *capabilities.ExecResult {
	t.Helper()
	if opts.RequestID == "" {
		opts.ThreadID, opts.RequestID = "thread", "req"
	}
	res, err := sh.Execute(context.Background(), command, opts)
	require.NoError(t, err)
	return res
}

// lines returns the kept lines of a result as "stream: text".
func lines(r *capabilities.ExecResult) []string {
	var out []string
	for _, l := range append(append([]capabilities.OutputLine{}, r.Head...), r.Tail...) {
		out = append(out, l.Stream.String()+": "+l.Text)
	}
	return out
}

// groupHasLive reports whether a non-zombie process of group pgid exists,
// read from /proc independently of the implementation. (This sandbox's
// init never reaps orphans, so kill(-pgid, 0) keeps succeeding for
// zombies and cannot be the test.)
func groupHasLive(t *testing.T, pgid int) bool {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	require.NoError(t, err)
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(b, ')')
		f := strings.Fields(string(b[i+1:]))
		if len(f) > 2 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" {
			return true
		}
	}
	return false
}

func TestExitCodes(t *testing.T) {
	sh := newShell(t)
	for _, code := range []int{0, 3} {
		res := run(t, sh, "exit "+strconv.Itoa(code), capabilities.ExecOptions{})
		assert.Equal(t, code, res.ExitCode)
		assert.Empty(t, res.Signal)
		assert.False(t, res.TimedOut || res.Cancelled)
	}
}

func TestKilledBySignal(t *testing.T) {
	res := run(t, newShell(t), "kill -KILL $$", capabilities.ExecOptions{})
	assert.Equal(t, -1, res.ExitCode)
	assert.Equal(t, "SIGKILL", res.Signal)
}

func TestTimeout(t *testing.T) {
	start := time.Now()
	res := run(t, newShell(t), "sleep 10", capabilities.ExecOptions{Timeout: 300 * time.Millisecond})
	assert.Less(t, time.Since(start), 2*time.Second)
	assert.True(t, res.TimedOut)
	assert.False(t, res.Cancelled)
	assert.Equal(t, "SIGTERM", res.Signal)
	assert.Equal(t, -1, res.ExitCode)
	log, err := os.ReadFile(res.LogPath)
	require.NoError(t, err)
	assert.Regexp(t, `\nsignal SIGTERM after \d+\.\d{3}s \(timed out\)\n$`, string(log))
}

func TestTimeoutCappedByMaxTimeout(t *testing.T) {
	sh := New(Options{LogRoot: t.TempDir(), MaxTimeout: 200 * time.Millisecond})
	res := run(t, sh, "sleep 10", capabilities.ExecOptions{Timeout: time.Hour})
	assert.True(t, res.TimedOut)
}

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opts := capabilities.ExecOptions{ThreadID: "t", RequestID: "r", OnOutput: func(l capabilities.OutputLine) {
		if l.Text == "ready" {
			cancel()
		}
	}}
	start := time.Now()
	res, err := newShell(t).Execute(ctx, "echo ready; sleep 10", opts)
	require.NoError(t, err)
	assert.Less(t, time.Since(start), 2*time.Second)
	assert.True(t, res.Cancelled)
	assert.False(t, res.TimedOut)
	assert.Equal(t, "SIGTERM", res.Signal)
	assert.Equal(t, []string{"stdout: ready"}, lines(res))
	log, err := os.ReadFile(res.LogPath)
	require.NoError(t, err)
	assert.Regexp(t, `\nsignal SIGTERM after \d+\.\d{3}s \(cancelled\)\n$`, string(log))
}

func TestCancelledBeforeStart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := newShell(t).Execute(ctx, "echo never", capabilities.ExecOptions{RequestID: "r"})
	require.NoError(t, err)
	assert.True(t, res.Cancelled)
	assert.Zero(t, res.TotalLines)
}

// pgidOf runs command, which must print $$ first, and returns the group.
func pgidOf(t *testing.T, res *capabilities.ExecResult) int {
	t.Helper()
	require.NotEmpty(t, res.Head)
	pgid, err := strconv.Atoi(res.Head[0].Text)
	require.NoError(t, err)
	return pgid
}

func TestTimeoutKillsWholeTree(t *testing.T) {
	// The timeout leaves the command time to print $$ on a loaded
	// machine (300 ms was not always enough under CI).
	res := run(t, newShell(t), "echo $$; sleep 100 & sleep 100 & (trap '' TERM; sleep 100) & sleep 100",
		capabilities.ExecOptions{Timeout: 2 * time.Second})
	assert.True(t, res.TimedOut)
	pgid := pgidOf(t, res)
	require.Eventually(t, func() bool { return !groupHasLive(t, pgid) }, 3*time.Second, 10*time.Millisecond)
}

func TestBackgroundChildrenKilledAtEnd(t *testing.T) {
	start := time.Now()
	res := run(t, newShell(t), "echo $$; sleep 100 & sleep 100 & echo done; exit 0", capabilities.ExecOptions{})
	assert.Less(t, time.Since(start), time.Second)
	assert.Equal(t, 0, res.ExitCode)
	assert.Equal(t, "done", res.Head[1].Text)
	pgid := pgidOf(t, res)
	require.Eventually(t, func() bool { return !groupHasLive(t, pgid) }, 3*time.Second, 10*time.Millisecond)
}

func TestGrandchildHoldingStdoutDoesNotHang(t *testing.T) {
	done := make(chan *capabilities.ExecResult, 1)
	go func() {
		res, err := newShell(t).Execute(context.Background(), "sleep 100 & echo ok; exit 0", capabilities.ExecOptions{RequestID: "r"})
		assert.NoError(t, err)
		done <- res
	}()
	select {
	case res := <-done:
		assert.Equal(t, 0, res.ExitCode)
		assert.Equal(t, []string{"stdout: ok"}, lines(res))
	case <-time.After(900 * time.Millisecond):
		t.Fatal("Execute hung on a grandchild holding stdout")
	}
}

func TestLargeOutputBounded(t *testing.T) {
	size := 200_000_000
	if testing.Short() {
		size = 20_000_000
	}
	cmd := "head -c " + strconv.Itoa(size) + " /dev/zero | tr '\\0' 'a' | fold -w 100"
	res := run(t, newShell(t), cmd, capabilities.ExecOptions{Timeout: 5 * time.Minute})
	assert.Equal(t, 0, res.ExitCode)
	assert.Equal(t, size/100, res.TotalLines)
	require.Len(t, res.Head, capabilities.ShellHeadLines)
	require.Len(t, res.Tail, capabilities.ShellTailLines)
	assert.Equal(t, strings.Repeat("a", 100), res.Head[0].Text)
	assert.Equal(t, strings.Repeat("a", 100), res.Tail[19].Text)
	assert.False(t, res.Binary)
	// The log is capped: its head and tail are kept around a marker
	// saying how much was dropped; the exit line is last.
	f, err := os.Open(res.LogPath)
	require.NoError(t, err)
	defer f.Close()
	fi, err := f.Stat()
	require.NoError(t, err)
	end := make([]byte, 64)
	_, err = f.ReadAt(end, fi.Size()-64)
	require.NoError(t, err)
	last := string(end[bytes.LastIndexByte(end[:63], '\n')+1:])
	assert.Regexp(t, `^exit 0 after \d+\.\d{3}s\n$`, last)
	assert.LessOrEqual(t, fi.Size(), int64(DefaultLogMaxBytes+len(last)+200))
	full := int64(len("$ "+cmd+"\n") + size/100*109 + len(last))
	b, err := os.ReadFile(res.LogPath)
	require.NoError(t, err)
	m := regexp.MustCompile(`\n\[magenta: (\d+) bytes dropped here: the log is capped at (\d+) bytes`).FindSubmatch(b)
	require.NotNil(t, m, "no dropped marker")
	dropped, _ := strconv.ParseInt(string(m[1]), 10, 64)
	markerLen := bytes.IndexByte(b[bytes.Index(b, m[0])+1:], '\n') + 1
	assert.Equal(t, full, fi.Size()-int64(markerLen)+dropped, "kept + dropped = everything")
	assert.Equal(t, res.LogDroppedBytes, dropped)
	// Every kept line is whole.
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")[1:] {
		if !strings.HasPrefix(l, "[magenta:") && !strings.HasPrefix(l, "exit ") {
			require.Equal(t, "stdout: "+strings.Repeat("a", 100), l)
		}
	}
}

func TestBinaryOutput(t *testing.T) {
	res := run(t, newShell(t), "head -c 10000 /dev/urandom; echo text >&2", capabilities.ExecOptions{})
	assert.True(t, res.Binary)
	assert.EqualValues(t, 10000, res.BinaryBytes)
	assert.Equal(t, []string{"stderr: text"}, lines(res))
	log, err := os.ReadFile(res.LogPath)
	require.NoError(t, err)
	assert.Contains(t, string(log), "stdout: [binary output: 10000 bytes]\n")
	assert.Less(t, len(log), 500)
}

func TestLongLineCutInMiddle(t *testing.T) {
	res := run(t, newShell(t), "head -c 1000000 /dev/zero | tr '\\0' 'x'; echo; echo after", capabilities.ExecOptions{})
	require.Equal(t, 2, res.TotalLines)
	l := res.Head[0].Text
	assert.LessOrEqual(t, len(l), capabilities.ShellMaxLineBytes)
	want := strings.Repeat("x", cutBudget) + " … [" + strconv.Itoa(1000000-2*cutBudget) + " bytes cut] … " + strings.Repeat("x", cutBudget)
	assert.Equal(t, want, l)
	assert.Equal(t, "after", res.Head[1].Text)
}

func TestANSIAndProgressFolded(t *testing.T) {
	cmd := `printf '\033[1;31mred\033[0m plain\n'; printf 'a\r10%%\r100%%\n'; printf 'downloading\rdone\n'; printf 'old text\r\033[Knew\n'`
	res := run(t, newShell(t), cmd, capabilities.ExecOptions{})
	assert.Equal(t, []string{"stdout: red plain", "stdout: 100%", "stdout: doneloading", "stdout: new"}, lines(res))
}

func TestCRLFAndInvalidUTF8(t *testing.T) {
	res := run(t, newShell(t), `printf 'one\r\ntwo\r\n'; printf '\xff\xfeok\n'`, capabilities.ExecOptions{})
	assert.Equal(t, []string{"stdout: one", "stdout: two", "stdout: \uFFFDok"}, lines(res))
	assert.False(t, res.Binary)
}

func TestStdinIsEmpty(t *testing.T) {
	start := time.Now()
	res := run(t, newShell(t), `cat; read x; echo "read=$?"`, capabilities.ExecOptions{Timeout: 5 * time.Second})
	assert.Less(t, time.Since(start), 2*time.Second)
	assert.False(t, res.TimedOut)
	assert.Equal(t, []string{"stdout: read=1"}, lines(res))
}

func TestStreamsTaggedAndOrdered(t *testing.T) {
	cmd := `for i in 1 2 3; do echo o$i; sleep 0.05; echo e$i >&2; sleep 0.05; done`
	res := run(t, newShell(t), cmd, capabilities.ExecOptions{})
	got := lines(res)
	require.Len(t, got, 6)
	var out, errs []string
	for _, l := range got {
		if strings.HasPrefix(l, "stderr: ") {
			errs = append(errs, l)
		} else {
			out = append(out, l)
		}
	}
	assert.Equal(t, []string{"stdout: o1", "stdout: o2", "stdout: o3"}, out)
	assert.Equal(t, []string{"stderr: e1", "stderr: e2", "stderr: e3"}, errs)
	// Loosely across streams: the first stdout line precedes the last stderr one.
	assert.Equal(t, "stdout: o1", got[0])
	assert.Equal(t, "stderr: e3", got[5])
}

func TestOnOutputSeesEveryLine(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	res := run(t, newShell(t), "seq 1 100", capabilities.ExecOptions{OnOutput: func(l capabilities.OutputLine) {
		mu.Lock()
		seen = append(seen, l.Text)
		mu.Unlock()
	}})
	require.Len(t, seen, 100)
	assert.Equal(t, "1", seen[0])
	assert.Equal(t, "100", seen[99])
	assert.Equal(t, 100, res.TotalLines)
	require.Len(t, res.Head, 10)
	require.Len(t, res.Tail, 20)
	assert.Equal(t, "10", res.Head[9].Text)
	assert.Equal(t, "81", res.Tail[0].Text)
	assert.Equal(t, "100", res.Tail[19].Text)
}

func TestCwd(t *testing.T) {
	base, sub := t.TempDir(), "sub"
	require.NoError(t, os.Mkdir(filepath.Join(base, sub), 0o755))
	base, err := filepath.EvalSymlinks(base)
	require.NoError(t, err)
	sh := New(Options{LogRoot: t.TempDir(), Cwd: base})
	assert.Equal(t, []string{"stdout: " + base}, lines(run(t, sh, "pwd", capabilities.ExecOptions{})))
	assert.Equal(t, []string{"stdout: " + filepath.Join(base, sub)}, lines(run(t, sh, "pwd", capabilities.ExecOptions{Cwd: sub})))
	other := t.TempDir()
	other, err = filepath.EvalSymlinks(other)
	require.NoError(t, err)
	assert.Equal(t, []string{"stdout: " + other}, lines(run(t, sh, "pwd", capabilities.ExecOptions{Cwd: other})))
}

func TestStartError(t *testing.T) {
	root := t.TempDir()
	sh := New(Options{LogRoot: root})
	res, err := sh.Execute(context.Background(), "true", capabilities.ExecOptions{RequestID: "r", Cwd: filepath.Join(root, "missing")})
	require.Error(t, err)
	assert.Nil(t, res)
	log, rerr := os.ReadFile(filepath.Join(root, "threads", "unknown", "tools", "r", "bashCommand.log"))
	require.NoError(t, rerr)
	assert.Contains(t, string(log), "\nstart error: ")
}

func TestLogFollowableWhileRunning(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	root := t.TempDir()
	path := filepath.Join(root, "threads", "t", "tools", "r", "bashCommand.log")
	done := make(chan struct{})
	go func() {
		defer close(done)
		res, err := New(Options{LogRoot: root}).Execute(ctx, "echo early; sleep 30", capabilities.ExecOptions{ThreadID: "t", RequestID: "r"})
		assert.NoError(t, err)
		assert.True(t, res.Cancelled)
	}()
	require.Eventually(t, func() bool {
		b, _ := os.ReadFile(path)
		return strings.Contains(string(b), "stdout: early\n")
	}, 5*time.Second, 20*time.Millisecond)
	cancel()
	<-done
}

func TestConcurrentCalls(t *testing.T) {
	sh := newShell(t)
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			n := strconv.Itoa(i)
			var stderr []string
			res, err := sh.Execute(context.Background(), "seq 1 5000; echo id"+n+" >&2",
				capabilities.ExecOptions{ThreadID: "t", RequestID: "r" + n, OnOutput: func(l capabilities.OutputLine) {
					if l.Stream == capabilities.Stderr {
						stderr = append(stderr, l.Text)
					}
				}})
			if assert.NoError(t, err) {
				assert.Equal(t, 5001, res.TotalLines)
				assert.Equal(t, []string{"id" + n}, stderr)
			}
		})
	}
	wg.Wait()
}
