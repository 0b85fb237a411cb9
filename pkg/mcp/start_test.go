package mcp

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// gatedServer is the test server started only once the file gate
// exists, so a test decides when it becomes ready.
func gatedServer(t testing.TB, name, gate string) ServerConfig {
	cfg := stdioServer(t, name)
	cfg.Args = []string{"-c", `while [ ! -e "$1" ]; do sleep 0.01; done; exec "$0"`, cfg.Command, gate}
	cfg.Command = "/bin/sh"
	return cfg
}

// Start starts the servers without a request; Starting names those on
// their first start, which WaitStarted waits for (up to its context),
// and a server that failed is not waited for.
func TestStartThenWaitForServersStarting(t *testing.T) {
	gate := filepath.Join(t.TempDir(), "gate")
	m := NewManager(Options{Servers: []ServerConfig{
		gatedServer(t, "slow", gate),
		{Name: "gone", Command: "/nonexistent/mcp-server"},
	}})
	defer m.Close()
	if got := m.Starting(); len(got) != 0 {
		t.Fatalf("nothing starts before Start: %v", got)
	}
	m.Start()
	if got := m.Starting(); !slices.Contains(got, "slow") {
		t.Fatalf("Starting() = %v, want slow (and gone until it fails)", got)
	}

	short, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	m.WaitStarted(short, []string{"slow"})
	cancel()
	if got := m.Starting(); !slices.Contains(got, "slow") {
		t.Fatalf("after a wait cut short: Starting() = %v, want slow still", got)
	}

	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	m.WaitStarted(ctx, []string{"slow", "gone"})
	if ctx.Err() != nil {
		t.Fatalf("WaitStarted returned only at its deadline: %+v", m.Status())
	}
	if got := m.Starting(); len(got) != 0 {
		t.Fatalf("Starting() = %v after the wait", got)
	}
	for _, s := range m.Status() {
		want := map[string]State{"slow": StateReady, "gone": StateFailed}[s.Name]
		if s.State != want {
			t.Errorf("%s is %s, want %s", s.Name, s.State, want)
		}
	}
	if len(m.Tools()) != toolCount {
		t.Errorf("the ready server's tools are listed: %d", len(m.Tools()))
	}
}
