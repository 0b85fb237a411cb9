package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/mcp/mcptest"
	"github.com/magenta-nvim/magenta/pkg/proctest"
	"github.com/magenta-nvim/magenta/pkg/tools"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

const deadline = 30 * time.Second

// stdioServer is this test binary serving MCP over stdio.
func stdioServer(t testing.TB, name string) ServerConfig {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return ServerConfig{Name: name, Command: exe, Env: map[string]string{strings.SplitN(mcptest.Env(), "=", 2)[0]: "stdio"}, Allow: []string{"*"}}
}

// ready asks for tools until the servers named are ready.
func ready(t testing.TB, m *Manager, want int) map[string]tools.Tool {
	t.Helper()
	end := time.Now().Add(deadline)
	for time.Now().Before(end) {
		ts := m.Tools()
		byName := map[string]tools.Tool{}
		for _, tl := range ts {
			byName[tl.Spec().Name] = tl
		}
		if len(byName) >= want {
			return byName
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("tools not ready: %+v", m.Status())
	return nil
}

func call(t testing.TB, tl tools.Tool, input string) tools.Result {
	t.Helper()
	return tl.Run(context.Background(), tools.Call{ID: "c1", ThreadID: "t1", Input: json.RawMessage(input)})
}

const toolCount = 11 // mcptest's tools but bad_schema and bad.name

func TestStdioServerTools(t *testing.T) {
	m := NewManager(Options{Servers: []ServerConfig{stdioServer(t, "srv")}})
	defer m.Close()
	if got := m.Tools(); len(got) != 0 {
		t.Fatalf("tools before the server started: %d", len(got))
	}
	ts := ready(t, m, toolCount)
	if _, ok := ts["mcp__srv__bad_schema"]; ok {
		t.Fatal("a tool with an invalid schema was offered")
	}
	st := m.Status()[0]
	if st.State != StateReady || len(st.Warnings) != 2 || !strings.Contains(strings.Join(st.Warnings, "\n"), "bad_schema") || !strings.Contains(strings.Join(st.Warnings, "\n"), "bad.name") {
		t.Fatalf("status %+v", st)
	}
	echo := ts["mcp__srv__echo"]
	if echo.Spec().Description != "Echoes the text." || !strings.Contains(string(echo.Spec().InputSchema), `"text"`) {
		t.Fatalf("spec %+v", echo.Spec())
	}
	if r := call(t, echo, `{"text":5}`); !r.IsError || !strings.Contains(r.Text, "does not match the tool's schema") {
		t.Fatalf("echo with a bad input: %+v", r)
	}
	if r := call(t, echo, `{"text":"hi"}`); r.IsError || r.Text != "echo: hi" {
		t.Fatalf("echo: %+v", r)
	}
	r := call(t, ts["mcp__srv__image"], `{}`)
	if r.IsError || len(r.Images) != 1 || string(r.Images[0].Data) != string(mcptest.PNG) || !strings.Contains(r.Text, "file:///tmp/x.txt") {
		t.Fatalf("image: %+v", r)
	}
	// A corrupt image is not passed on (it would fail the whole request):
	// the model is told what came instead.
	if r := call(t, ts["mcp__srv__broken_image"], `{}`); r.IsError || len(r.Images) != 0 || !strings.Contains(r.Text, "was not passed on: corrupt or truncated image: PNG") {
		t.Fatalf("broken_image: %+v", r)
	}
	if r := call(t, ts["mcp__srv__structured"], `{}`); r.IsError || !strings.Contains(r.Text, `"answer":42`) {
		t.Fatalf("structured: %+v", r)
	}
	if r := call(t, ts["mcp__srv__fail"], `{}`); !r.IsError || r.Text != "it broke" {
		t.Fatalf("fail: %+v", r)
	}
}

// A tool the server adds while it runs joins after tools/list_changed.
func TestListChangedAddsTools(t *testing.T) {
	m := NewManager(Options{Servers: []ServerConfig{stdioServer(t, "srv")}})
	defer m.Close()
	ts := ready(t, m, toolCount)
	if r := call(t, ts["mcp__srv__grow"], `{}`); r.IsError {
		t.Fatalf("grow: %+v", r)
	}
	ts = ready(t, m, toolCount+1)
	if r := call(t, ts["mcp__srv__grown"], `{}`); r.Text != "grown" {
		t.Fatalf("grown: %+v", r)
	}
}

type memArtifacts struct{ saved map[string][]byte }

func (a *memArtifacts) Save(thread, req, name string, data []byte) (string, error) {
	p := "/logs/" + thread + "/" + req + "/" + name
	a.saved[p] = data
	return p, nil
}

func TestLongResultAbbreviatedAndSaved(t *testing.T) {
	m := NewManager(Options{Servers: []ServerConfig{stdioServer(t, "srv")}})
	defer m.Close()
	ts := ready(t, m, toolCount)
	arts := &memArtifacts{saved: map[string][]byte{}}
	r := ts["mcp__srv__big"].Run(context.Background(), tools.Call{ID: "c1", ThreadID: "t1", Input: json.RawMessage(`{}`), Env: &capabilities.Environment{Artifacts: arts}})
	full := arts.saved["/logs/t1/c1/mcp-result.txt"]
	if r.IsError || len(r.Text) > ResultCharBudget+300 || !strings.Contains(r.Text, "/logs/t1/c1/mcp-result.txt") || len(full) != mcptest.BigChars {
		t.Fatalf("big: %d chars, saved %d: %q", len(r.Text), len(full), r.Text[len(r.Text)-200:])
	}
}

func TestMissingCommandFailsClearly(t *testing.T) {
	told := make(chan string, 4)
	m := NewManager(Options{Servers: []ServerConfig{{Name: "nope", Command: "/nonexistent/mcp-server"}},
		OnFailure: func(server string, err error) { told <- server + ": " + err.Error() }})
	defer m.Close()
	m.Tools()
	end := time.Now().Add(deadline)
	for m.Status()[0].State != StateFailed {
		if time.Now().After(end) {
			t.Fatalf("status %+v", m.Status())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if st := m.Status()[0]; !strings.Contains(st.LastError, "/nonexistent/mcp-server") {
		t.Fatalf("last error %q", st.LastError)
	}
	select {
	case msg := <-told:
		if !strings.Contains(msg, "nope: could not start") {
			t.Fatalf("told %q", msg)
		}
	case <-time.After(deadline):
		t.Fatal("the failure was not reported")
	}
}

func TestCrashMidCallIsAnErrorAndRestarts(t *testing.T) {
	m := NewManager(Options{Servers: []ServerConfig{stdioServer(t, "srv")}})
	defer m.Close()
	ts := ready(t, m, toolCount)
	r := call(t, ts["mcp__srv__crash"], `{}`)
	if !r.IsError {
		t.Fatalf("crash: %+v", r)
	}
	// The next need after the backoff starts it again.
	ts = ready(t, m, toolCount)
	if r := call(t, ts["mcp__srv__echo"], `{"text":"again"}`); r.Text != "echo: again" {
		t.Fatalf("after restart: %+v", r)
	}
}

func TestHangHitsTimeout(t *testing.T) {
	cfg := stdioServer(t, "srv")
	cfg.Timeout = 300 * time.Millisecond
	m := NewManager(Options{Servers: []ServerConfig{cfg}})
	defer m.Close()
	ts := ready(t, m, toolCount)
	r := call(t, ts["mcp__srv__hang"], `{}`)
	if !r.IsError || !strings.Contains(r.Text, "timed out") || !strings.Contains(r.Text, "mcpServers.srv.timeout") {
		t.Fatalf("hang: %+v", r)
	}
}

func TestCloseKillsServerProcess(t *testing.T) {
	m := NewManager(Options{Servers: []ServerConfig{stdioServer(t, "srv")}})
	ts := ready(t, m, toolCount)
	pid, err := strconv.Atoi(call(t, ts["mcp__srv__pid"], `{}`).Text)
	if err != nil {
		t.Fatal(err)
	}
	child, err := strconv.Atoi(call(t, ts["mcp__srv__spawn"], `{}`).Text)
	if err != nil {
		t.Fatal(err)
	}
	m.Close()
	waitGone(t, pid)
	waitGone(t, child) // killed with the server's process group
}

func waitGone(t *testing.T, pid int) {
	t.Helper()
	end := time.Now().Add(deadline)
	for proctest.Alive(pid) {
		if time.Now().After(end) {
			t.Fatalf("server process %d still exists", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestStreamableHTTPServer(t *testing.T) {
	srv := mcptest.NewServer()
	var gotHeader string
	h := sdk.NewStreamableHTTPHandler(func(r *http.Request) *sdk.Server {
		gotHeader = r.Header.Get("Authorization")
		return srv
	}, nil)
	hs := httptest.NewServer(h)
	defer hs.Close()
	m := NewManager(Options{Servers: []ServerConfig{{Name: "web", URL: hs.URL, Headers: map[string]string{"Authorization": "Bearer t"}, Allow: []string{"echo"}}}})
	defer m.Close()
	ts := ready(t, m, toolCount)
	if r := call(t, ts["mcp__web__echo"], `{"text":"http"}`); r.IsError || r.Text != "echo: http" {
		t.Fatalf("echo: %+v", r)
	}
	if gotHeader != "Bearer t" {
		t.Fatalf("header %q", gotHeader)
	}
	// Not on the allow list and no broker: refused, not run.
	if r := call(t, ts["mcp__web__pid"], `{}`); !r.IsError || !strings.Contains(r.Text, "mcpServers.web.allow") {
		t.Fatalf("pid: %+v", r)
	}
}

// A server that answers with something that is not JSON-RPC fails
// clearly, without a hang, and its process is gone.
func TestMalformedServerFails(t *testing.T) {
	for name, script := range map[string]string{
		"garbage": `sleep 300 & echo $! > "$PIDFILE"; echo 'this is not json'; wait`,
		"exits":   `echo 'MCP_TOKEN is not set' >&2; exit 7`,
	} {
		t.Run(name, func(t *testing.T) {
			pidFile := t.TempDir() + "/pid"
			m := NewManager(Options{Servers: []ServerConfig{{Name: "bad", Command: "sh", Args: []string{"-c", script}, Env: map[string]string{"PIDFILE": pidFile}}}})
			defer m.Close()
			m.Tools()
			end := time.Now().Add(deadline)
			for m.Status()[0].State != StateFailed {
				if time.Now().After(end) {
					t.Fatalf("status %+v", m.Status())
				}
				time.Sleep(20 * time.Millisecond)
			}
			if st := m.Status()[0]; !strings.Contains(st.LastError, "could not start") {
				t.Fatalf("last error %q", st.LastError)
			}
			if name == "exits" && !strings.Contains(m.Status()[0].LastError, "stderr: MCP_TOKEN is not set") {
				t.Fatalf("last error without the server's stderr: %q", m.Status()[0].LastError)
			}
			if data, err := os.ReadFile(pidFile); err == nil {
				pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
				if err != nil {
					t.Fatal(err)
				}
				waitGone(t, pid) // the server's child went with it
			}
		})
	}
}

// The chat's line for an MCP result shows the result, once, not its
// size behind the tool's name again (issue 24 item 10).
func TestResultSummaryShowsTheResult(t *testing.T) {
	for _, tc := range []struct {
		text   string
		images int
		want   string
	}{
		{"2", 0, "2"},
		{"\n  first line  \nsecond\n\nthird\n", 0, "first line (+2 lines)"},
		{"first\nsecond", 0, "first (+1 line)"},
		{strings.Repeat("é", 100), 0, strings.Repeat("é", 79) + "…"},
		{"", 0, "no output"},
		{"", 2, "2 images"},
		{"", 1, "1 image"},
		{"caption", 1, "caption, 1 image"},
	} {
		if got := resultSummary(tc.text, tc.images); got != tc.want {
			t.Errorf("resultSummary(%q, %d) = %q, want %q", tc.text, tc.images, got, tc.want)
		}
	}
}
