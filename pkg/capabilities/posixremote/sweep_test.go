package posixremote

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// marked lists this machine's processes whose environment has
// CallMarker=marker.
func marked(marker string) []string {
	want := []byte(CallMarker + "=" + marker)
	var pids []string
	files, _ := filepath.Glob("/proc/[0-9]*/environ")
	for _, f := range files {
		env, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, kv := range bytes.Split(env, []byte{0}) {
			if bytes.Equal(kv, want) {
				pids = append(pids, filepath.Base(filepath.Dir(f)))
			}
		}
	}
	return pids
}

// TestWrappersEndWhatTheCommandLeft: both wrappers, run on this machine,
// report the command's status and end the processes it left behind,
// those that left the group with setsid included; EndScript ends a
// command from outside.
func TestWrappersEndWhatTheCommandLeft(t *testing.T) {
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("no /proc: no sweep")
	}
	for _, w := range []struct{ name, sh, script string }{
		{"sh", "sh", WrapScript},
		{"bash", "bash", WrapScriptBash},
	} {
		t.Run(w.name, func(t *testing.T) {
			marker, err := NewMarker()
			require.NoError(t, err)
			out, err := exec.Command(w.sh, "-c", w.script, "sh", "setsid sleep 9981 & sleep 9982 & echo left; exit 3", w.name, marker).Output()
			var exit *exec.ExitError
			require.ErrorAs(t, err, &exit)
			assert.Equal(t, 3, exit.ExitCode())
			assert.Equal(t, "left\n", string(out))
			require.Eventually(t, func() bool { return len(marked(marker)) == 0 }, 30*time.Second, 20*time.Millisecond,
				"left running: %v", marked(marker))
		})
	}
	t.Run("End", func(t *testing.T) {
		marker, err := NewMarker()
		require.NoError(t, err)
		cmd := exec.Command("sh", "-c", WrapScript, "sh", "setsid sleep 9983 & echo started; sleep 9984", "sh", marker)
		stdout, err := cmd.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		line := make([]byte, 8)
		_, err = stdout.Read(line)
		require.NoError(t, err)
		require.NoError(t, exec.Command("sh", "-c", EndScript, "sh", marker).Run())
		err = cmd.Wait()
		var exit *exec.ExitError
		require.ErrorAs(t, err, &exit)
		assert.Equal(t, 143, exit.ExitCode(), "SIGTERM, reported by the wrapper")
		assert.Empty(t, marked(marker))
	})
}
