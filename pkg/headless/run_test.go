package headless

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/mcp/mcptest"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
)

// lockedBuffer is an io.Writer safe for the run's writer goroutine and
// the test.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// runInProcess runs Run in a temporary workspace (the process's working
// directory for the test) against the scripted provider fake.
func runInProcess(t *testing.T, fake *providertest.Fake, interrupt chan os.Signal, args ...string) (chan int, *lockedBuffer, *lockedBuffer) {
	t.Helper()
	return runWith(t, fake, interrupt, "", args...)
}

// runWith is runInProcess with more options (JSON members, no braces).
func runWith(t *testing.T, fake *providertest.Fake, interrupt chan os.Signal, extra string, args ...string) (chan int, *lockedBuffer, *lockedBuffer) {
	t.Helper()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.json")
	if extra != "" {
		extra = ", " + extra
	}
	require.NoError(t, os.WriteFile(cfg, []byte(`{"profiles": [{"name": "fake", "provider": "anthropic", "model": "m", "apiKeyEnvVar": "FAKE_KEY", "pricing": {"input": 1000000, "output": 0}}],
	  "sandbox": {"enabled": false}, "shell": {"logRoot": "`+filepath.Join(dir, "logs")+`"}`+extra+`}`), 0o600))
	t.Chdir(dir)
	env := map[string]string{"FAKE_KEY": "k", "XDG_DATA_HOME": filepath.Join(dir, "data"), "XDG_CONFIG_HOME": filepath.Join(dir, "config")}
	stdout, stderr := &lockedBuffer{}, &lockedBuffer{}
	code := make(chan int, 1)
	go func() {
		code <- Run(append([]string{"--config", cfg}, args...), Deps{
			NewProvider: func(config.Profile) (provider.Provider, error) { return fake, nil },
			Getenv:      func(k string) string { return env[k] },
			Stdout:      stdout, Stderr: stderr, Interrupt: interrupt,
		})
	}()
	return code, stdout, stderr
}

func parseEvents(t *testing.T, s string) []Event {
	t.Helper()
	var out []Event
	for _, line := range strings.Split(strings.TrimSpace(s), "\n") {
		var ev Event
		require.NoError(t, json.Unmarshal([]byte(line), &ev), line)
		out = append(out, ev)
	}
	return out
}

// The whole run in one process (under -race too): streamed text,
// thinking, a tool call, usage and the result.
func TestRunInProcess(t *testing.T) {
	fake := providertest.New()
	code, stdout, stderr := runInProcess(t, fake, nil, "--json", "hello")
	c := fake.Next(t)
	c.Thinking("Hmm.", "sig")
	c.Text("Title first. ")
	c.ToolUse("t1", "thread_title", map[string]string{"title": "Greeting"})
	c.Stop(provider.StopToolUse)
	fake.Next(t).Reply("Hello to you.")
	require.Equal(t, ExitOK, <-code, stderr.String())
	evs := parseEvents(t, stdout.String())
	var types []string
	for _, ev := range evs {
		types = append(types, ev.Type)
	}
	assert.Equal(t, []string{EventStart, EventThinking, EventText, EventToolCall, EventToolResult, EventText, EventResult}, types)
	assert.Equal(t, "Hello to you.", evs[len(evs)-1].Text)
}

// An interrupt aborts the turn the model is streaming.
func TestRunInterruptedInProcess(t *testing.T) {
	fake := providertest.New()
	interrupt := make(chan os.Signal, 1)
	code, stdout, _ := runInProcess(t, fake, interrupt, "--json", "hello")
	c := fake.Next(t)
	c.Text("Working")
	interrupt <- syscall.SIGINT
	assert.Equal(t, ExitInterrupted, <-code)
	evs := parseEvents(t, stdout.String())
	assert.Equal(t, StatusInterrupted, evs[len(evs)-1].Status)
}

// --max-cost counts sub-agents: the parent's reply costs $1, its
// sub-agent's $3; the run stops once the sum passes $3.50.
func TestMaxCostCountsSubagents(t *testing.T) {
	fake := providertest.New()
	code, stdout, stderr := runInProcess(t, fake, nil, "--json", "--max-cost", "3.5", "delegate")
	c := fake.Next(t)
	c.Usage(provider.Usage{InputTokens: 1})
	c.ToolUse("s1", "spawn_subagents", map[string]any{"agents": []map[string]string{{"prompt": "count to three"}}})
	c.Stop(provider.StopToolUse)
	child := fake.Next(t)
	assert.Contains(t, child.FirstUserText(), "count to three")
	child.Usage(provider.Usage{InputTokens: 3})
	child.Reply("one two three")
	require.Equal(t, ExitBudget, <-code, stderr.String())
	evs := parseEvents(t, stdout.String())
	last := evs[len(evs)-1]
	assert.Equal(t, StatusBudget, last.Status)
	require.NotNil(t, last.Usage)
	assert.InDelta(t, 4.0, last.Usage.Cost, 1e-9, "the sub-agent's cost counts")
}

// No prompt and a terminal on stdin is a usage error, not a wait.
func TestNoPromptFromATerminal(t *testing.T) {
	var stderr bytes.Buffer
	code := Run([]string{"--config", "/nonexistent/none.json"}, Deps{StdinIsTerminal: true, Stdout: &bytes.Buffer{}, Stderr: &stderr, Getenv: func(string) string { return "" }})
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, stderr.String(), "no prompt")
}

// The config file's MCP servers run as setup()'s: their tools are
// offered and called (allowed ones without asking).
func TestRunWithMCPServer(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	name, value, _ := strings.Cut(mcptest.Env(), "=")
	servers, _ := json.Marshal(map[string]any{"t": map[string]any{"command": exe, "env": map[string]string{name: value}, "allow": []string{"*"}}})
	fake := providertest.New()
	code, stdout, stderr := runWith(t, fake, nil, `"mcpServers": `+string(servers), "--json", "echo")
	c := fake.Next(t)
	c.ToolUse("m1", "mcp__t__echo", map[string]string{"text": "hi"})
	c.Stop(provider.StopToolUse)
	c = fake.Next(t)
	assert.Equal(t, "echo: hi", c.Results()["m1"].Result[0].Text)
	c.Reply("Echoed.")
	require.Equal(t, ExitOK, <-code, stderr.String())
	assert.Contains(t, stdout.String(), `"name":"mcp__t__echo"`)
}
