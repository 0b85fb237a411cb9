package localshell

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// A small cap on a real run: head and tail kept whole, a marker with the
// exact count between them, the exit line last, and the result says how
// much was dropped.
func TestLogCapKeepsHeadAndTail(t *testing.T) {
	sh := New(Options{LogRoot: t.TempDir(), LogMaxBytes: 64 << 10})
	res := run(t, sh, "seq 1 100000", capabilities.ExecOptions{})
	assert.Equal(t, 100000, res.TotalLines)
	b, err := os.ReadFile(res.LogPath)
	require.NoError(t, err)
	assert.LessOrEqual(t, len(b), 64<<10+200)
	ls := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	assert.Equal(t, "$ seq 1 100000", ls[0])
	assert.Equal(t, "stdout: 1", ls[1])
	assert.Regexp(t, `^exit 0 after`, ls[len(ls)-1])
	assert.Equal(t, "stdout: 100000", ls[len(ls)-2])
	var marker int
	for i, l := range ls {
		if strings.HasPrefix(l, "[magenta: ") {
			marker = i
		}
	}
	require.NotZero(t, marker, "no marker")
	var before, after int
	_, err = fmt.Sscanf(ls[marker-1], "stdout: %d", &before)
	require.NoError(t, err)
	_, err = fmt.Sscanf(ls[marker+1], "stdout: %d", &after)
	require.NoError(t, err)
	// The dropped lines are exactly before+1 .. after-1.
	var dropped int64
	for n := before + 1; n < after; n++ {
		dropped += int64(len(fmt.Sprintf("stdout: %d\n", n)))
	}
	assert.Equal(t, fmt.Sprintf("[magenta: %d bytes dropped here: the log is capped at %d bytes, its start and end are kept]", dropped, 64<<10), ls[marker])
	assert.Equal(t, dropped, res.LogDroppedBytes)
}

func TestLogUnderTheCapIsWhole(t *testing.T) {
	sh := New(Options{LogRoot: t.TempDir(), LogMaxBytes: 1 << 20})
	res := run(t, sh, "seq 1 1000", capabilities.ExecOptions{})
	b, err := os.ReadFile(res.LogPath)
	require.NoError(t, err)
	assert.NotContains(t, string(b), "[magenta:")
	assert.Zero(t, res.LogDroppedBytes)
	assert.Equal(t, 1000+2, strings.Count(string(b), "\n"))
}

// plantThread makes <root>/threads/<name> with one file of size bytes,
// last changed age ago.
func plantThread(t *testing.T, root, name string, size int, age time.Duration) string {
	t.Helper()
	dir := filepath.Join(root, "threads", name, "tools", "r")
	require.NoError(t, os.MkdirAll(dir, 0o700))
	f := filepath.Join(dir, "bashCommand.log")
	require.NoError(t, os.WriteFile(f, make([]byte, size), 0o600))
	when := time.Now().Add(-age)
	for _, p := range []string{f, dir, filepath.Dir(dir), filepath.Join(root, "threads", name)} {
		require.NoError(t, os.Chtimes(p, when, when))
	}
	return filepath.Join(root, "threads", name)
}

func TestPruneByAgeAndQuota(t *testing.T) {
	root := t.TempDir()
	ancient := plantThread(t, root, "ancient", 10, 30*24*time.Hour)
	old := plantThread(t, root, "old", 600, 3*time.Hour)
	older := plantThread(t, root, "older", 600, 4*time.Hour)
	recent := plantThread(t, root, "recent", 600, 2*time.Hour)
	active := plantThread(t, root, "active", 5000, time.Minute)
	removed := pruneThreads(filepath.Join(root, "threads"), 7*24*time.Hour, 6000, time.Now())
	// Age first; then the oldest until within quota; the active thread
	// is spared even though it alone passes the quota.
	assert.Equal(t, []string{ancient, older, old}, removed)
	for _, d := range []string{recent, active} {
		assert.DirExists(t, d)
	}
}

// A new Shell prunes its log root in the background.
func TestNewShellPrunesOldThreads(t *testing.T) {
	root := t.TempDir()
	old := plantThread(t, root, "old", 10, 2*time.Hour)
	keep := plantThread(t, root, "keep", 10, time.Minute)
	New(Options{LogRoot: root, LogMaxAge: time.Hour})
	require.Eventually(t, func() bool {
		_, err := os.Stat(old)
		return os.IsNotExist(err)
	}, 30*time.Second, 10*time.Millisecond)
	assert.DirExists(t, keep)
}

// Logging past an eighth of the quota prunes again: a thread planted
// after the Shell started goes once commands have logged enough.
func TestLoggingPrunesPastTheQuota(t *testing.T) {
	root := t.TempDir()
	sh := New(Options{LogRoot: root, LogQuota: 64 << 10})
	idle := plantThread(t, root, "idle", 60<<10, time.Hour)
	run(t, sh, "seq 1 5000", capabilities.ExecOptions{ThreadID: "busy", RequestID: "r"})
	require.Eventually(t, func() bool {
		_, err := os.Stat(idle)
		return os.IsNotExist(err)
	}, 30*time.Second, 10*time.Millisecond)
	assert.DirExists(t, filepath.Join(root, "threads", "busy"))
}
