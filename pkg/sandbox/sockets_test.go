package sandbox_test

import (
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/sandbox/zygote"
)

// dialEnv makes the test binary a Unix-socket client (see TestMain): the
// sandbox has no guaranteed client program of its own.
const dialEnv = "SANDBOX_TEST_DIAL"

func TestMain(m *testing.M) {
	zygote.MainIfZygote() // BenchmarkGitStatus's confinement parent
	if fake := os.Getenv(detectEnv); fake != "" {
		detectThenExit(fake)
	}
	if path := os.Getenv(dialEnv); path != "" {
		c, err := net.Dial("unix", path)
		if err != nil {
			fmt.Println("dial:", err)
			os.Exit(1)
		}
		_, _ = io.WriteString(c, "hi")
		_ = c.Close()
		fmt.Println("connected")
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// The editor's RPC socket, the agents and the session bus sit in the
// file system, where neither a read-only mount nor the network namespace
// stops connect(2): the policy hides them.
func TestAgentSocketsAreHidden(t *testing.T) {
	// A short root: a Unix socket's path must fit in 108 bytes, which a
	// long $TMPDIR would exceed.
	w := newWorldIn(t, hostTmpDir(t))
	runtimeDir := filepath.Join(w.home, "run")
	sockets := map[string]string{
		"nvim (in the runtime dir)": filepath.Join(runtimeDir, "nvim.1234.0"),
		"$NVIM elsewhere":           filepath.Join(w.home, "nvim-elsewhere.sock"),
		"$SSH_AUTH_SOCK":            filepath.Join(w.home, "agent", "ssh.sock"),
		"$DBUS_SESSION_BUS_ADDRESS": filepath.Join(w.home, "dbus", "bus"),
		"control (not hidden)":      filepath.Join(w.ws, "control.sock"),
	}
	for _, path := range sockets {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		ln, err := net.Listen("unix", path)
		require.NoError(t, err)
		t.Cleanup(func() { _ = ln.Close() })
	}
	t.Setenv("XDG_RUNTIME_DIR", runtimeDir)
	t.Setenv("NVIM", sockets["$NVIM elsewhere"])
	t.Setenv("NVIM_LISTEN_ADDRESS", sockets["nvim (in the runtime dir)"]) // a mask inside a masked directory
	t.Setenv("SSH_AUTH_SOCK", sockets["$SSH_AUTH_SOCK"])
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path="+sockets["$DBUS_SESSION_BUS_ADDRESS"]+",guid=0123")

	self, err := os.Executable()
	require.NoError(t, err)
	dialer := filepath.Join(w.ws, "dialer") // the test binary's own directory is in the private /tmp
	b, err := os.ReadFile(self)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(dialer, b, 0o755))

	for name, path := range sockets {
		hidden := name != "control (not hidden)"
		r := w.run(t, w.policy, w.ws, fmt.Sprintf("%s=%s ./dialer", dialEnv, shellQuote(path)))
		assert.Equal(t, !hidden, r.code == 0, "%s: %s", name, r.out)
		assert.Equal(t, hidden, w.policy.Readable(path) == false, "Readable agrees for %s", name)
	}
}
