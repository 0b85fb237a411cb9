package host_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/host"
	"github.com/magenta-nvim/magenta/pkg/mcp/mcptest"
	"github.com/magenta-nvim/magenta/pkg/nvimtest"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// projectFile is a .mcp.json naming this test binary as the stdio
// server "proj"; the variable that makes it serve comes through a
// ${VAR:-default} expansion, and extra is an argument (changing it
// changes the file).
func projectFile(t *testing.T, extra string) []byte {
	exe, err := os.Executable()
	require.NoError(t, err)
	data, err := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"proj": map[string]any{"command": exe, "args": []string{extra},
			"env": map[string]string{"MAGENTA_MCPTEST_SERVE": "${MAGENTA_TEST_UNSET_MODE:-stdio}"}},
	}})
	require.NoError(t, err)
	return data
}

type projectStatus struct {
	File    string `msgpack:"file"`
	State   string `msgpack:"state"`
	Problem string `msgpack:"problem"`
}

// startProject starts Neovim in a workspace holding data as its
// .mcp.json and opens the sidebar; setup adds options.
func startProject(t *testing.T, bin string, data []byte, setup string) (*nvimtest.Nvim, *providertest.Fake) {
	return startProjectWith(t, bin, data, setup, nil)
}

// startProjectWith is startProject with files (path relative to the
// workspace → content) written before the sidebar opens, which reads
// .mcp.json and what its servers run.
func startProjectWith(t *testing.T, bin string, data []byte, setup string, files map[string]string) (*nvimtest.Nvim, *providertest.Fake) {
	n := nvimtest.Start(t, bin)
	if data != nil {
		require.NoError(t, os.WriteFile(filepath.Join(n.Dir, ".mcp.json"), data, 0o644))
	}
	for path, content := range files {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(n.Dir, path)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(n.Dir, path), []byte(content), 0o644))
	}
	fake := providertest.New()
	n.StartHost(host.Options{
		Version:     "test",
		NewProvider: func(config.Profile) (provider.Provider, error) { return fake, nil },
	})
	n.Setup(fmt.Sprintf(`{
		profiles = { { name = "fast", provider = "anthropic", model = "model-a" } },
		sandbox = { enabled = false },
		%s
	}`, setup))
	n.Command("Magenta toggle")
	n.WaitForText("display", "# New thread")
	return n, fake
}

func mcpState(n *nvimtest.Nvim) ([]mcpStatus, projectStatus) {
	var servers []mcpStatus
	var proj projectStatus
	n.LuaResult(&servers, `return require('magenta.host').request('mcp')`)
	n.LuaResult(&proj, `return require('magenta.host').request('mcp_project')`)
	return servers, proj
}

func mcpText(n *nvimtest.Nvim) string {
	var lines []string
	n.LuaResult(&lines, `return require('magenta.commands').mcp_lines()`)
	return strings.Join(lines, "\n")
}

// send types a message and returns the request it makes.
func send(t *testing.T, n *nvimtest.Nvim, fake *providertest.Fake, text string) *providertest.Call {
	n.Type(text)
	n.Keys("<CR>")
	return fake.Next(t)
}

func answer(n *nvimtest.Nvim, choice string) {
	n.FocusRole("display")
	n.CursorTo(choice)
	n.Keys("<CR>")
	n.FocusRole("input")
}

// A cloned repository's .mcp.json starts nothing by itself: the first
// request asks in the sidebar and starts no process; YES starts the
// server, whose tool the next request offers, and is remembered per
// workspace and content; a changed file stops the server and asks again;
// NO then starts nothing.
func TestMCPProjectFileTrustedWithYes(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := startProject(t, bin, projectFile(t, "one"), "")
		first := send(t, n, fake, "hello")
		assert.False(t, offers(first, "mcp__proj__echo"))
		first.Reply("hi")
		text := n.WaitForText("display", "> YES")
		assert.Contains(t, text, filepath.Join(n.Dir, ".mcp.json"))
		exe, _ := os.Executable()
		assert.Contains(t, text, "┃ proj (stdio): "+exe+" one\n", "shown as written")
		assert.Contains(t, text, `┃   env MAGENTA_MCPTEST_SERVE="${MAGENTA_TEST_UNSET_MODE:-stdio}"`)
		assert.Contains(t, text, "┃   runs "+exe)
		assert.NotContains(t, text, "ALWAYS")
		servers, proj := mcpState(n)
		assert.Empty(t, servers, "nothing starts before the answer")
		assert.Equal(t, "waiting", proj.State)
		assert.Contains(t, mcpText(n), "waiting for your answer")

		answer(n, "> YES")
		n.WaitFor("the project server to be ready", func() bool {
			servers, _ = mcpState(n)
			return len(servers) == 1 && servers[0].State == "ready"
		}, func() string { return fmt.Sprintf("%+v", servers) })
		assert.Contains(t, mcpText(n), "proj (stdio, from .mcp.json): ready")
		// The display catches up with the host in frames.
		n.WaitFor("the answered question to leave the display", func() bool {
			return !strings.Contains(n.Text(n.Buffer("display")), "> YES")
		}, func() string { return n.Text(n.Buffer("display")) })
		second := send(t, n, fake, "use it")
		require.True(t, offers(second, "mcp__proj__echo"), "the trusted server's tools join the next request")
		second.Reply("ok")
		store, err := os.ReadFile(filepath.Join(n.Dir, "data", "nvim", "magenta", "mcp-trust.json"))
		require.NoError(t, err)
		real, _ := filepath.EvalSymlinks(n.Dir)
		assert.Contains(t, string(store), real)

		// The file changes: its server stops and the question comes back.
		require.NoError(t, os.WriteFile(filepath.Join(n.Dir, ".mcp.json"), projectFile(t, "two"), 0o644))
		third := send(t, n, fake, "again")
		third.Reply("ok")
		n.WaitForText("display", "> YES")
		n.WaitFor("the old server to stop", func() bool {
			servers, _ = mcpState(n)
			return len(servers) == 0
		}, func() string { return fmt.Sprintf("%+v", servers) })
		answer(n, "> NO")
		n.WaitFor("the file to be untrusted", func() bool {
			_, proj = mcpState(n)
			return proj.State == "untrusted"
		}, func() string { return fmt.Sprintf("%+v", proj) })
		fourth := send(t, n, fake, "and now?")
		assert.False(t, offers(fourth, "mcp__proj__echo"), "NO starts nothing")
		fourth.Reply("ok")
		servers, _ = mcpState(n)
		assert.Empty(t, servers)
		assert.Contains(t, mcpText(n), "not trusted")

		// :Magenta mcp-trust changes its mind.
		n.Command("Magenta mcp-trust")
		n.WaitFor("the project server to be ready", func() bool {
			servers, _ = mcpState(n)
			return len(servers) == 1 && servers[0].State == "ready"
		}, func() string { return fmt.Sprintf("%+v", servers) })
		n.Command("Magenta mcp-untrust")
		n.WaitFor("the server to stop", func() bool {
			servers, _ = mcpState(n)
			return len(servers) == 0
		}, func() string { return fmt.Sprintf("%+v", servers) })
	})
}

// NO starts nothing, and the session does not ask again about the same
// file; a setup() server of the same name wins over the project's.
func TestMCPProjectFileRefusedWithNo(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		data := []byte(strings.Replace(string(projectFile(t, "x")), `{"mcpServers":{`, `{"mcpServers":{"mine":{"command":"/nonexistent/x"},`, 1))
		n, fake := startProject(t, bin, data, fmt.Sprintf(`mcpServers = { mine = { command = %q, env = { MAGENTA_MCPTEST_SERVE = "stdio" } } },`, exe))
		first := send(t, n, fake, "hello")
		first.Reply("hi")
		n.WaitForText("display", "> NO")
		answer(n, "> NO")
		n.WaitFor("the file to be untrusted", func() bool {
			_, proj := mcpState(n)
			return proj.State == "untrusted"
		}, func() string { return mcpText(n) })
		second := send(t, n, fake, "again")
		assert.False(t, offers(second, "mcp__proj__echo"))
		second.Reply("second reply")
		n.WaitFor("the setup server to be ready", func() bool {
			servers, _ := mcpState(n)
			return len(servers) == 1 && servers[0].Name == "mine" && servers[0].State == "ready"
		}, func() string { return mcpText(n) })
		// The display catches up with the host in frames: once the second
		// reply is drawn, everything before it is.
		text := n.WaitForText("display", "second reply")
		assert.NotContains(t, text, "> NO", "not asked again")

		// Trusted, the project's "mine" is shadowed by setup()'s.
		n.Command("Magenta mcp-trust")
		n.WaitFor("the project server to be ready", func() bool {
			return strings.Contains(mcpText(n), "proj (stdio, from .mcp.json): ready")
		}, func() string { return mcpText(n) })
		text = mcpText(n)
		assert.Contains(t, text, "mine (stdio, from setup()): ready")
		assert.Contains(t, text, "mine (stdio, from .mcp.json): shadowed")
		assert.Contains(t, text, "setup() configures a server of the same name")
	})
}

// A malformed .mcp.json: one warning naming the file and the problem,
// no question, nothing started. A server that fails shows in the
// thread's header until it is ready.
func TestMCPProjectFileMalformedAndFailedHeader(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := startProject(t, bin, []byte(`{"mcpServers": {"bad": {"args": ["x"]}}}`),
			`mcpServers = { gone = { command = "/nonexistent/mcp-server" } },`)
		first := send(t, n, fake, "hello")
		first.Reply("hi")
		want := filepath.Join(n.Dir, ".mcp.json") + `: mcpServers.bad: a stdio server needs "command"; none of its MCP servers was started`
		n.WaitFor("the warning", func() bool { return strings.Contains(n.Messages(), want) }, n.Messages)
		n.WaitForText("display", "mcp: gone failed (see :Magenta mcp)")
		second := send(t, n, fake, "again")
		second.Reply("ok")
		assert.Equal(t, 1, strings.Count(n.Messages(), want), "said once")
		text := n.Text(n.Buffer("display"))
		assert.NotContains(t, text, "> YES")
		servers, proj := mcpState(n)
		assert.Equal(t, "malformed", proj.State)
		require.Len(t, servers, 1)
		assert.Equal(t, "gone", servers[0].Name)
		assert.Contains(t, mcpText(n), `malformed, nothing of it runs: mcpServers.bad: a stdio server needs "command"`)
	})
}

// mcpProjectFile = false: the file is never read, nothing is asked; the
// option is validated like every other.
func TestMCPProjectFileOff(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := startProject(t, bin, projectFile(t, "x"), `mcpProjectFile = false,`)
		send(t, n, fake, "hello").Reply("hi")
		second := send(t, n, fake, "again")
		assert.False(t, offers(second, "mcp__proj__echo"))
		second.Reply("second reply")
		assert.NotContains(t, n.WaitForText("display", "second reply"), "> YES")
		servers, proj := mcpState(n)
		assert.Empty(t, servers)
		assert.Equal(t, "off", proj.State)
		assert.Contains(t, mcpText(n), "no MCP servers configured")
		var msg string
		n.LuaResult(&msg, `local ok, err = require('magenta.config').set({ mcpProjectFile = "yes" }); return err or ""`)
		assert.Contains(t, msg, "option 'mcpProjectFile' must be boolean")
	})
}

// An HTTP server from .mcp.json, its URL and header expanded from the
// environment, joins after YES.
func TestMCPProjectFileHTTPServer(t *testing.T) {
	srv := mcptest.NewServer()
	var mu sync.Mutex
	var auth string
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(r *http.Request) *sdk.Server {
		mu.Lock()
		auth = r.Header.Get("Authorization")
		mu.Unlock()
		return srv
	}, nil))
	defer hs.Close()
	t.Setenv("MAGENTA_TEST_MCP_URL", hs.URL)
	t.Setenv("MAGENTA_TEST_MCP_TOKEN", "t0k")
	data := []byte(`{"mcpServers": {"web": {"type": "http", "url": "${MAGENTA_TEST_MCP_URL}", "headers": {"Authorization": "Bearer ${MAGENTA_TEST_MCP_TOKEN}"}}}}`)
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := startProject(t, bin, data, "")
		send(t, n, fake, "hello").Reply("hi")
		text := n.WaitForText("display", "> YES")
		assert.Contains(t, text, `┃ web (http): "${MAGENTA_TEST_MCP_URL}"`, "shown as written")
		assert.Contains(t, text, `┃   header Authorization: "Bearer ${MAGENTA_TEST_MCP_TOKEN}"`, "the header, and which variable it sends")
		assert.NotContains(t, text, "t0k", "no secret on the screen")
		answer(n, "> YES")
		n.WaitFor("the HTTP server to be ready", func() bool {
			return strings.Contains(mcpText(n), "web (http, from .mcp.json): ready")
		}, func() string { return mcpText(n) })
		next := send(t, n, fake, "use it")
		assert.True(t, offers(next, "mcp__web__echo"))
		next.Reply("ok")
		mu.Lock()
		defer mu.Unlock()
		assert.Equal(t, "Bearer t0k", auth)
	})
}

// Trust covers what runs: a server run by bash from a workspace script
// is shown with every argument escaped; once trusted, a rewritten script
// stops it and asks again, naming the script, and nothing runs before
// YES.
func TestMCPProjectScriptChangedAsksAgain(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	exe, err := os.Executable()
	require.NoError(t, err)
	data, err := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"proj": map[string]any{"command": "bash", "args": []string{"tools/server.sh", "a\nb" + strings.Repeat(" ", 40) + "; touch x"},
			"env": map[string]string{"MAGENTA_MCPTEST_SERVE": "stdio", "API_TOKEN": "literal-secret-value"}},
	}})
	require.NoError(t, err)
	script := fmt.Sprintf("exec %q \"$@\"\n", exe)
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := startProjectWith(t, bin, data, "", map[string]string{"tools/server.sh": script})
		first := send(t, n, fake, "hello")
		first.Reply("hi")
		text := n.WaitForText("display", "> YES")
		assert.Contains(t, text, `┃ proj (stdio): bash tools/server.sh "a\nb␠×40; touch x"`)
		assert.Contains(t, text, `┃   env API_TOKEN="lite…(20 chars)"`)
		assert.NotContains(t, text, "literal-secret-value")
		real, _ := filepath.EvalSymlinks(bash)
		assert.Contains(t, text, "┃   runs "+real+", tools/server.sh")
		answer(n, "> YES")
		var servers []mcpStatus
		n.WaitFor("the project server to be ready", func() bool {
			servers, _ = mcpState(n)
			return len(servers) == 1 && servers[0].State == "ready"
		}, func() string { return fmt.Sprintf("%+v", servers) })

		// The script is rewritten (write_file, a git pull): the server
		// stops and the question names the script.
		require.NoError(t, os.WriteFile(filepath.Join(n.Dir, "tools", "server.sh"), []byte(script+"# planted\n"), 0o644))
		second := send(t, n, fake, "again")
		second.Reply("ok")
		text = n.WaitForText("display", "tools/server.sh changed since you trusted it")
		assert.Contains(t, text, "> YES")
		n.WaitFor("the server to stop", func() bool {
			servers, _ = mcpState(n)
			return len(servers) == 0
		}, func() string { return fmt.Sprintf("%+v", servers) })
		third := send(t, n, fake, "still waiting")
		assert.False(t, offers(third, "mcp__proj__echo"), "nothing runs before YES")
		third.Reply("ok")
		answer(n, "> YES")
		n.WaitFor("the project server to be ready again", func() bool {
			servers, _ = mcpState(n)
			return len(servers) == 1 && servers[0].State == "ready"
		}, func() string { return fmt.Sprintf("%+v", servers) })
	})
}
