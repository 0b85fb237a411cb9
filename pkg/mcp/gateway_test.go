package mcp

import (
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// waitFailed waits until the only server has failed and returns its
// last error.
func waitFailed(t *testing.T, m *Manager) string {
	t.Helper()
	end := time.Now().Add(deadline)
	for m.Status()[0].State != StateFailed {
		if time.Now().After(end) {
			t.Fatalf("the server did not fail: %+v", m.Status())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return m.Status()[0].LastError
}

// A gateway that dies (killed, or a crash) takes its sessions with it:
// the server fails with that reason, its process is gone, and the next
// need starts a new gateway and the server again.
func TestGatewayDeathFailsServersAndRestarts(t *testing.T) {
	m := NewManager(Options{Servers: []ServerConfig{stdioServer(t, "srv")}})
	defer m.Close()
	ts := ready(t, m, toolCount)
	pid, err := strconv.Atoi(call(t, ts["mcp__srv__pid"], `{}`).Text)
	if err != nil {
		t.Fatal(err)
	}
	m.gateway.mu.Lock()
	gw := m.gateway.proc.cmd.Process.Pid
	m.gateway.mu.Unlock()
	if err := syscall.Kill(gw, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if msg := waitFailed(t, m); !strings.Contains(msg, "the MCP gateway exited") {
		t.Fatalf("last error %q", msg)
	}
	waitGone(t, pid) // the kernel killed it with the gateway
	if r := call(t, ts["mcp__srv__echo"], `{"text":"x"}`); !r.IsError || !strings.Contains(r.Text, "not running") {
		t.Fatalf("a call on the dead session: %+v", r)
	}
	ts = ready(t, m, toolCount) // after the restart delay
	if r := call(t, ts["mcp__srv__echo"], `{"text":"again"}`); r.Text != "echo: again" {
		t.Fatalf("after the gateway's restart: %+v", r)
	}
}

// Without magenta-mcp beside the host, servers fail saying what to build.
func TestMissingGatewayFailsClearly(t *testing.T) {
	saved := gatewayCommand
	gatewayCommand = defaultGatewayCommand // this test binary has none beside it
	t.Cleanup(func() { gatewayCommand = saved })
	m := NewManager(Options{Servers: []ServerConfig{stdioServer(t, "srv")}})
	defer m.Close()
	m.Start()
	msg := waitFailed(t, m)
	for _, want := range []string{"the MCP gateway", GatewayPath(), "is missing", "run `make`"} {
		if !strings.Contains(msg, want) {
			t.Errorf("last error %q lacks %q", msg, want)
		}
	}
}

// A gateway built from another version is refused with a message.
func TestGatewayOfAnotherVersionIsRefused(t *testing.T) {
	saved := gatewayCommand
	gatewayCommand = func() (*exec.Cmd, error) {
		return exec.Command("/bin/sh", "-c", `echo '{"hello":{"protocol":999,"pid":1}}'; cat >/dev/null`), nil
	}
	t.Cleanup(func() { gatewayCommand = saved })
	m := NewManager(Options{Servers: []ServerConfig{stdioServer(t, "srv")}})
	defer m.Close()
	m.Start()
	if msg := waitFailed(t, m); !strings.Contains(msg, "protocol 999") || !strings.Contains(msg, "make build") {
		t.Fatalf("last error %q", msg)
	}
}
