package localshell

import (
	"bytes"
	"os"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// TestOnTailSamplesTheLatestLines: a live view that follows a command
// through OnTail ends with the command's last lines and its line count,
// and the log and the retained lines are those of a run without it —
// for a short output (all in the head), a long one (past the head, on the
// fast path) and through a terminal.
func TestOnTailSamplesTheLatestLines(t *testing.T) {
	sh := newShell(t)
	for _, tc := range []struct {
		name        string
		n           int
		interactive bool
	}{{"head only", 4, false}, {"past the head", 100000, false}, {"terminal", 500, true}} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := "seq 1 " + strconv.Itoa(tc.n)
			var mu sync.Mutex
			var last []capabilities.OutputLine
			calls, lastTotal := 0, 0
			opts := capabilities.ExecOptions{ThreadID: "t", RequestID: "tail-" + strconv.Itoa(tc.n), Interactive: tc.interactive,
				OnTail: func(lines []capabilities.OutputLine, total int) {
					mu.Lock()
					defer mu.Unlock()
					assert.Greater(t, total, lastTotal, "OnTail is called only with new lines")
					last, lastTotal = lines, total
					calls++
				}}
			res := run(t, sh, cmd, opts)
			require.Equal(t, tc.n, res.TotalLines)
			mu.Lock()
			defer mu.Unlock()
			require.NotEmpty(t, last)
			assert.Equal(t, tc.n, lastTotal, "the last call has the final count")
			assert.Equal(t, strconv.Itoa(tc.n), last[len(last)-1].Text, "and the last line")
			assert.LessOrEqual(t, len(last), capabilities.ShellTailLines)
			for i, l := range last {
				assert.Equal(t, strconv.Itoa(tc.n-len(last)+1+i), l.Text, "the latest lines, in order")
			}
			assert.Less(t, calls, 1000, "sampled, not per line")

			plain := run(t, sh, cmd, capabilities.ExecOptions{ThreadID: "t", RequestID: "plain-" + strconv.Itoa(tc.n), Interactive: tc.interactive})
			assert.Equal(t, plain.Head, res.Head)
			assert.Equal(t, plain.Tail, res.Tail)
			withTail, err := os.ReadFile(res.LogPath)
			require.NoError(t, err)
			without, err := os.ReadFile(plain.LogPath)
			require.NoError(t, err)
			// The same but for the last line's duration ("exit 0 after 0.008s").
			assert.True(t, sameLog(without, withTail), "the log is the same with a live view")
		})
	}
}

// sameLog compares two command logs without their last line, which says
// how long the command took.
func sameLog(a, b []byte) bool {
	cut := func(x []byte) []byte {
		x = bytes.TrimSuffix(x, []byte("\n"))
		if i := bytes.LastIndexByte(x, '\n'); i >= 0 {
			return x[:i]
		}
		return nil
	}
	return len(a) > 0 && bytes.Equal(cut(a), cut(b))
}
