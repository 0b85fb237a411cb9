package localshell

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// launchSh is a Launcher that runs commands with sh and records its
// arguments; its End signals the shell the way a container's End
// signals the command inside it.
type launchSh struct {
	pidFile string
	cwd     string
	env     []string
	ended   atomic.Int32
}

func (l *launchSh) launch(command, cwd string, env []string) (*Launch, error) {
	l.cwd, l.env = cwd, env
	// The shell's pid goes to a file: under the supervisor, cmd is not
	// the process that runs.
	cmd := exec.Command("sh", "-c", "echo $$ > "+l.pidFile+"; "+command)
	cmd.Dir, cmd.Env = cwd, env
	return &Launch{Cmd: cmd, End: func(context.Context) error {
		l.ended.Add(1)
		b, err := os.ReadFile(l.pidFile)
		if err != nil {
			return err
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil {
			return err
		}
		return syscall.Kill(pid, syscall.SIGTERM)
	}}, nil
}

// TestLaunchReplacesBash: the launcher gets the resolved cwd and the
// hardened environment, its process's output goes through the usual
// pipeline, and End is called on cancel only.
func TestLaunchReplacesBash(t *testing.T) {
	l := &launchSh{pidFile: filepath.Join(t.TempDir(), "pid")}
	dir := t.TempDir()
	sh := New(Options{LogRoot: t.TempDir(), Cwd: dir, Env: []string{"PAGER=less", "KEEP=1"}, Launch: l.launch})
	res := run(t, sh, `echo "${BASH_VERSION:-no bash} $PAGER $KEEP"; pwd; exit 5`, capabilities.ExecOptions{})
	assert.Equal(t, []string{"stdout: no bash cat 1", "stdout: " + dir}, lines(res))
	assert.Equal(t, 5, res.ExitCode)
	assert.Equal(t, dir, l.cwd)
	assert.Contains(t, l.env, "PAGER=cat")
	assert.Zero(t, l.ended.Load(), "End runs only when the command is ended")

	ctx, cancel := context.WithCancel(context.Background())
	res, err := sh.Execute(ctx, "echo started; sleep 60", capabilities.ExecOptions{ThreadID: "t", RequestID: "c",
		OnOutput: func(capabilities.OutputLine) { cancel() }})
	require.NoError(t, err)
	assert.True(t, res.Cancelled)
	assert.Equal(t, "SIGTERM", res.Signal)
	assert.Equal(t, int32(1), l.ended.Load())
}

// TestLaunchError: a launcher that cannot start the command makes
// Execute fail, and the log says why.
func TestLaunchError(t *testing.T) {
	sh := New(Options{LogRoot: t.TempDir(), Launch: func(string, string, []string) (*Launch, error) {
		return nil, errors.New("no container")
	}})
	_, err := sh.Execute(context.Background(), "true", capabilities.ExecOptions{ThreadID: "t", RequestID: "e"})
	require.ErrorContains(t, err, "no container")
}
