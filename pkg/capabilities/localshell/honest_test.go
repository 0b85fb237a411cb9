package localshell

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// Control bytes past the binary sniff window are removed from every
// line, on the fast path (no OnOutput) and the slow one; a backspace
// takes back the rune before it.
func TestControlBytesCleanedPastTheSniffWindow(t *testing.T) {
	cmd := `seq 1 2000; printf 'x\0y\a\bz\177\001w\n'; printf 'tab\there\n'; printf 'c1 \302\233 end\n'`
	for _, withOnOutput := range []bool{false, true} {
		var streamed []string
		opts := capabilities.ExecOptions{}
		if withOnOutput {
			opts.OnOutput = func(l capabilities.OutputLine) { streamed = append(streamed, l.Text) }
		}
		res := run(t, newShell(t), cmd, opts)
		require.False(t, res.Binary)
		n := len(res.Tail)
		assert.Equal(t, []string{"stdout: 2000", "stdout: xzw", "stdout: tab\there", "stdout: c1  end"}, lines(res)[len(res.Head)+n-4:])
		if withOnOutput {
			assert.Equal(t, []string{"xzw", "tab\there", "c1  end"}, streamed[len(streamed)-3:])
		}
		log, err := os.ReadFile(res.LogPath)
		require.NoError(t, err)
		assert.Contains(t, string(log), "\nstdout: xzw\n")
		for _, c := range []byte{0, 7, 8, 0x7f, 1} {
			assert.NotContains(t, string(log), string([]byte{c}))
		}
	}
}

// plain must accept exactly ASCII text with tabs and newlines: checked
// against the byte-wise rule at every position of the two-word, one-word
// and byte-wise loops.
func TestPlainMatchesTheRule(t *testing.T) {
	rule := func(c byte) bool { return c < 0x80 && (c >= 0x20 || c == '\n' || c == '\t') && c != 0x7f }
	for c := 0; c < 256; c++ {
		for pos := 0; pos < 19; pos++ {
			b := []byte("abcdefg\nijk\tmnopqrs")
			b[pos] = byte(c)
			assert.Equal(t, rule(byte(c)), plain(b), "byte %#x at %d", c, pos)
		}
	}
}

func TestOnStartReportsTheCappedTimeout(t *testing.T) {
	sh := New(Options{LogRoot: t.TempDir(), MaxTimeout: time.Minute})
	var got time.Duration
	run(t, sh, "true", capabilities.ExecOptions{Timeout: time.Hour, OnStart: func(d time.Duration) { got = d }})
	assert.Equal(t, time.Minute, got)
}

// The log root must be the user's own directory: a planted symlink, a
// file or another user's directory sends the logs to <root>-<uid>, with a
// warning.
func TestLogRootFallback(t *testing.T) {
	uid := strconv.Itoa(os.Getuid())
	tmp := t.TempDir() // stands for /tmp
	elsewhere := t.TempDir()

	link := filepath.Join(tmp, "linked")
	require.NoError(t, os.Symlink(elsewhere, link))
	sh := New(Options{LogRoot: link})
	assert.Equal(t, link+"-"+uid, sh.LogRoot())
	assert.Contains(t, sh.Warning(), "is a symbolic link")
	res := run(t, sh, "echo hi", capabilities.ExecOptions{})
	assert.True(t, strings.HasPrefix(res.LogPath, link+"-"+uid+"/"), res.LogPath)
	ents, err := os.ReadDir(elsewhere)
	require.NoError(t, err)
	assert.Empty(t, ents, "nothing written through the symlink")
	fi, err := os.Lstat(link + "-" + uid)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), fi.Mode().Perm())

	file := filepath.Join(tmp, "file")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	sh = New(Options{LogRoot: file})
	assert.Equal(t, file+"-"+uid, sh.LogRoot())
	assert.Contains(t, sh.Warning(), "is not a directory")

	// Another user's directory: a directory judged for a uid that does
	// not own it (chown needs privileges the test may not have).
	other := filepath.Join(tmp, "other")
	require.NoError(t, os.Mkdir(other, 0o755))
	assert.ErrorIs(t, usableDir(other, os.Getuid()+1), errNotOwner)
	_, warning, err := settleLogRootFor(other, os.Getuid()+1)
	assert.Error(t, err)
	assert.Contains(t, warning, other+": belongs to another user")

	fresh := filepath.Join(tmp, "fresh")
	sh = New(Options{LogRoot: fresh})
	assert.Equal(t, fresh, sh.LogRoot())
	assert.Empty(t, sh.Warning())
	fi, err = os.Lstat(fresh)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), fi.Mode().Perm())
}

// A log on a full disk (/dev/full: every write fails) is reported as
// incomplete, not silently short.
func TestLogWriteErrorReported(t *testing.T) {
	f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full:", err)
	}
	l := newLogFile(f, DefaultLogMaxBytes)
	l.buf = append(l.buf, "stdout: x\n"...)
	sum := l.close("exit 0")
	require.Error(t, sum.err)
	assert.Contains(t, sum.err.Error(), "no space left on device")
}

// fullDiskHelperEnv makes the test binary run `seq` with a 64 KB file
// size limit (RLIMIT_FSIZE, a real kernel write error) and print the
// result as JSON.
const fullDiskHelperEnv = "MAGENTA_TEST_FULL_DISK_HELPER"

func fullDiskHelper(root string) int {
	signal.Ignore(syscall.SIGXFSZ) // writes past the limit fail with EFBIG
	lim := syscall.Rlimit{Cur: 64 << 10, Max: 64 << 10}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		return 2
	}
	res, err := New(Options{LogRoot: root, Unsupervised: true}).Execute(context.Background(), "seq 1 100000", capabilities.ExecOptions{ThreadID: "t", RequestID: "r"})
	if err != nil {
		return 3
	}
	_ = json.NewEncoder(os.Stdout).Encode(res)
	return 0
}

// When the disk fills up, the log ends with a marker saying it is
// incomplete (room is made for it by cutting the end of what was
// written), then the exit line; the result says so too.
func TestFullDiskLogCarriesAMarker(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	root := t.TempDir()
	c := exec.Command(exe)
	c.Env = append(os.Environ(), fullDiskHelperEnv+"="+root)
	c.Stderr = os.Stderr
	out, err := c.Output()
	require.NoError(t, err)
	var res capabilities.ExecResult
	require.NoError(t, json.Unmarshal(out, &res))
	assert.Equal(t, 100000, res.TotalLines)
	assert.Contains(t, res.LogError, "file too large")
	log, err := os.ReadFile(res.LogPath)
	require.NoError(t, err)
	assert.LessOrEqual(t, len(log), 64<<10)
	assert.Regexp(t, `\n\[magenta: log incomplete: write .*: file too large\]\nexit 0 after \d+\.\d{3}s\n$`, string(log))
}
