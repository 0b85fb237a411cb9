package mcp

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/magenta-nvim/magenta/pkg/mcp/mcptest"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func statusOf(m *Manager, name, source string) (Status, bool) {
	for _, s := range m.Status() {
		if s.Name == name && s.Source == source {
			return s, true
		}
	}
	return Status{}, false
}

func pidOf(t *testing.T, m *Manager, tool string) int {
	t.Helper()
	ts := ready(t, m, 0)
	end := time.Now().Add(deadline)
	for ts[tool] == nil {
		if time.Now().After(end) {
			t.Fatalf("no %s: %+v", tool, m.Status())
		}
		time.Sleep(20 * time.Millisecond)
		ts = ready(t, m, 0)
	}
	pid, err := strconv.Atoi(call(t, ts[tool], `{}`).Text)
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// Project servers join after the first listing and start at once; one
// named like a setup() server is shadowed; an unchanged one keeps
// running, a changed one is replaced, and removing them stops them.
func TestProjectServersJoinReplaceAndShadow(t *testing.T) {
	m := NewManager(Options{Servers: []ServerConfig{stdioServer(t, "srv")}})
	defer m.Close()
	ready(t, m, toolCount) // tools were needed: new servers start at once
	proj := stdioServer(t, "proj")
	shadow := stdioServer(t, "srv")
	shadow.Args = []string{"project"}
	m.SetProjectServers([]ServerConfig{proj, shadow})
	pid := pidOf(t, m, "mcp__proj__pid")
	st, ok := statusOf(m, "srv", SourceProject)
	if !ok || st.State != StateShadowed || !strings.Contains(st.LastError, "setup()") {
		t.Fatalf("shadowed: %+v", m.Status())
	}
	if st, _ := statusOf(m, "srv", SourceSetup); st.State != StateReady {
		t.Fatalf("setup server: %+v", st)
	}

	m.SetProjectServers([]ServerConfig{proj}) // unchanged: kept
	if again := pidOf(t, m, "mcp__proj__pid"); again != pid {
		t.Fatalf("an unchanged server was restarted: %d → %d", pid, again)
	}
	changed := proj
	changed.Args = []string{"v2"}
	m.SetProjectServers([]ServerConfig{changed})
	waitGone(t, pid)
	next := pidOf(t, m, "mcp__proj__pid")
	m.SetProjectServers(nil)
	waitGone(t, next)
	if _, ok := statusOf(m, "proj", SourceProject); ok {
		t.Fatalf("a removed server is listed: %+v", m.Status())
	}
}

// A project server whose file names an unset variable fails with the
// reason, and the header's progress lists it as failed.
func TestProjectServerProblemFails(t *testing.T) {
	m := NewManager(Options{})
	defer m.Close()
	m.Tools()
	m.SetProjectServers([]ServerConfig{{Name: "p", Command: "x", Problem: ".mcp.json: not set in the environment: TOKEN"}})
	end := time.Now().Add(deadline)
	for {
		st, _ := statusOf(m, "p", SourceProject)
		if st.State == StateFailed {
			if !strings.Contains(st.LastError, "TOKEN") {
				t.Fatalf("status %+v", st)
			}
			break
		}
		if time.Now().After(end) {
			t.Fatalf("not failed: %+v", m.Status())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if p := m.Progress(); len(p) != 1 || p[0].Name != "p" || !p[0].Failed {
		t.Fatalf("progress %+v", p)
	}
}

// "type": "sse" in a project file speaks the older HTTP+SSE transport.
func TestSSEServer(t *testing.T) {
	srv := mcptest.NewServer()
	hs := httptest.NewServer(sdk.NewSSEHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	defer hs.Close()
	m := NewManager(Options{Servers: []ServerConfig{{Name: "old", URL: hs.URL, SSE: true, Allow: []string{"*"}}}})
	defer m.Close()
	ts := ready(t, m, toolCount)
	if r := call(t, ts["mcp__old__echo"], `{"text":"sse"}`); r.IsError || r.Text != "echo: sse" {
		t.Fatalf("echo: %+v", r)
	}
	if st := m.Status()[0]; st.Transport != "sse" {
		t.Fatalf("status %+v", st)
	}
}

// The gate hands the same servers over at every check: nothing changes,
// nothing is redrawn.
func TestSetProjectServersUnchangedIsQuiet(t *testing.T) {
	var mu sync.Mutex
	changes := 0
	m := NewManager(Options{OnChange: func() { mu.Lock(); changes++; mu.Unlock() }})
	defer m.Close()
	cfg := []ServerConfig{{Name: "p", Command: "x", Problem: "not started in this test"}}
	m.SetProjectServers(cfg)
	m.SetProjectServers(cfg)
	m.SetProjectServers(nil)
	m.SetProjectServers(nil)
	mu.Lock()
	defer mu.Unlock()
	if changes != 2 {
		t.Fatalf("%d redraws for 2 changes", changes)
	}
}

// environOf reads a process's environment from /proc.
func environOf(t *testing.T, pid int) map[string]string {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	env := map[string]string{}
	for _, kv := range strings.Split(string(data), "\x00") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	return env
}

// A project server gets the sandbox's allowlist plus what its file
// names, never the editor's whole environment (API keys, the NVIM
// socket); a setup() server keeps the whole environment.
func TestProjectServerEnvironmentIsAllowlisted(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-secret")
	t.Setenv("NVIM", "/tmp/nvim.sock")
	t.Setenv("LANG", "C.UTF-8")
	m := NewManager(Options{Servers: []ServerConfig{stdioServer(t, "mine")}})
	defer m.Close()
	ready(t, m, toolCount)
	proj := stdioServer(t, "proj")
	proj.Env["NAMED_BY_FILE"] = "yes"
	m.SetProjectServers([]ServerConfig{proj})
	env := environOf(t, pidOf(t, m, "mcp__proj__pid"))
	for _, k := range []string{"ANTHROPIC_API_KEY", "NVIM"} {
		if _, ok := env[k]; ok {
			t.Errorf("the project server got %s", k)
		}
	}
	if env["NAMED_BY_FILE"] != "yes" || env["LANG"] != "C.UTF-8" || env["PATH"] != os.Getenv("PATH") {
		t.Errorf("environment %v", env)
	}
	setup := environOf(t, pidOf(t, m, "mcp__mine__pid"))
	if setup["ANTHROPIC_API_KEY"] != "sk-ant-secret" || setup["NVIM"] != "/tmp/nvim.sock" {
		t.Errorf("the setup() server lost its environment: %v", setup)
	}
}

// Verify is asked before every start of a project server (not of a
// setup() one); its error fails the start without running anything.
func TestVerifyBeforeProjectServerStarts(t *testing.T) {
	var mu sync.Mutex
	var asked []string
	refuse := true
	m := NewManager(Options{Servers: []ServerConfig{stdioServer(t, "mine")}, Verify: func(c ServerConfig) error {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, c.Name+" "+c.Trusted)
		if refuse {
			return errors.New("not started: tools/server.sh changed since you trusted it")
		}
		return nil
	}})
	defer m.Close()
	ready(t, m, toolCount)
	proj := stdioServer(t, "proj")
	proj.Trusted = "digest"
	m.SetProjectServers([]ServerConfig{proj})
	end := time.Now().Add(deadline)
	for {
		st, _ := statusOf(m, "proj", SourceProject)
		if st.State == StateFailed {
			if !strings.Contains(st.LastError, "tools/server.sh changed") || st.PID != 0 {
				t.Fatalf("status %+v", st)
			}
			break
		}
		if time.Now().After(end) {
			t.Fatalf("not refused: %+v", m.Status())
		}
		time.Sleep(10 * time.Millisecond)
	}
	mu.Lock()
	if strings.Join(asked, ",") != "proj digest" {
		t.Fatalf("asked %q", asked)
	}
	refuse = false
	mu.Unlock()
	m.SetProjectServers([]ServerConfig{stdioServer(t, "proj")}) // the gate hands it on again, trusted
	pidOf(t, m, "mcp__proj__pid")
}
