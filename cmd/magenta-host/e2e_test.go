package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/host"
	"github.com/magenta-nvim/magenta/pkg/nvimtest"
)

// fakeAnthropic answers the Messages API with scripted SSE streams, one
// per request, and records the request bodies.
type fakeAnthropic struct {
	mu       sync.Mutex
	requests []map[string]any
	streams  [][]string // each: SSE event lines to send
}

func (f *fakeAnthropic) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req map[string]any
	_ = json.Unmarshal(body, &req)
	f.mu.Lock()
	f.requests = append(f.requests, req)
	n := len(f.requests)
	var events []string
	if n <= len(f.streams) {
		events = f.streams[n-1]
	}
	f.mu.Unlock()
	if r.URL.Path != "/v1/messages" || r.Header.Get("x-api-key") != "test-key" {
		http.Error(w, `{"type":"error","error":{"type":"authentication_error","message":"bad key or path"}}`, http.StatusUnauthorized)
		return
	}
	w.Header().Set("content-type", "text/event-stream")
	for _, e := range events {
		fmt.Fprint(w, e)
		w.(http.Flusher).Flush()
	}
}

func sse(event string, data any) string {
	b, _ := json.Marshal(data)
	return fmt.Sprintf("event: %s\ndata: %s\n\n", event, b)
}

func textStream(text string, tool map[string]any) []string {
	out := []string{
		sse("message_start", map[string]any{"type": "message_start", "message": map[string]any{
			"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test", "content": []any{},
			"stop_reason": nil, "usage": map[string]any{"input_tokens": 10, "output_tokens": 1}}}),
		sse("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}}),
	}
	for _, part := range strings.SplitAfter(text, " ") {
		out = append(out, sse("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": part}}))
	}
	out = append(out, sse("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0}))
	stop := "end_turn"
	if tool != nil {
		stop = "tool_use"
		input, _ := json.Marshal(tool["input"])
		out = append(out,
			sse("content_block_start", map[string]any{"type": "content_block_start", "index": 1, "content_block": map[string]any{"type": "tool_use", "id": tool["id"], "name": tool["name"], "input": map[string]any{}}}),
			sse("content_block_delta", map[string]any{"type": "content_block_delta", "index": 1, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(input)}}),
			sse("content_block_stop", map[string]any{"type": "content_block_stop", "index": 1}))
	}
	return append(out,
		sse("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop}, "usage": map[string]any{"output_tokens": 5}}),
		sse("message_stop", map[string]any{"type": "message_stop"}))
}

func TestManifestIsCurrent(t *testing.T) {
	want, err := os.ReadFile(filepath.Join(nvimtest.Root(), "rplugin", "magenta.vim"))
	require.NoError(t, err)
	assert.Equal(t, string(host.Manifest("magenta")), string(want),
		"rplugin/magenta.vim is stale: run `make manifest`")
}

// TestBinaryEndToEnd lets Neovim start the built binary through
// remote#host#Register, the way a user's Neovim does, and has a streaming
// conversation with tool use over real HTTP and SSE. Then it kills the
// host and checks the user is told once and the next command starts a
// fresh one.
func TestBinaryEndToEnd(t *testing.T) {
	bin := nvimtest.HostBinary(t)
	nvimtest.ForEach(t, func(t *testing.T, nvimBin string) {
		api := &fakeAnthropic{streams: [][]string{
			textStream("Hello from the wire. ", map[string]any{"id": "toolu_1", "name": "thread_title", "input": map[string]any{"title": "Wire test"}}),
			textStream("Title set.", nil),
		}}
		srv := httptest.NewServer(api)
		defer srv.Close()

		n := nvimtest.Start(t, nvimBin, "MAGENTA_E2E_KEY=test-key")
		n.Serve()
		logFile := filepath.Join(n.Dir, "magenta.log")
		n.Setup(fmt.Sprintf(`{
			profiles = { { name = "wire", provider = "anthropic", model = "claude-test", baseUrl = %q, apiKeyEnvVar = "MAGENTA_E2E_KEY" } },
			host = { binary = %q, logFile = %q },
		}`, srv.URL, bin, logFile))
		var jobs int
		n.LuaResult(&jobs, `return #vim.api.nvim_list_chans()`)
		// The host starts before the sidebar's modules load: its
		// start-up overlaps them (host.prestart).
		n.Lua(`
			local js = vim.fn.jobstart
			vim.fn.jobstart = function(cmd, ...)
				if type(cmd) == "table" and cmd[1] == require("magenta.host").binary() then
					_G.sidebar_loaded_at_start = package.loaded["magenta.sidebar"] ~= nil
				end
				return js(cmd, ...)
			end`)

		n.Command("Magenta toggle")
		n.WaitForText("display", "# New thread")
		var loaded any
		n.LuaResult(&loaded, `return _G.sidebar_loaded_at_start`)
		assert.Equal(t, false, loaded, "the host starts before the sidebar's modules load")
		n.Type("hello")
		n.Keys("<CR>")
		text := n.WaitForText("display", "Title set.")
		assert.Contains(t, text, "# Wire test")
		assert.Contains(t, text, "Hello from the wire.")
		assert.Contains(t, text, "✓ thread_title: Wire test")

		api.mu.Lock()
		require.Len(t, api.requests, 2)
		assert.Equal(t, "claude-test", api.requests[0]["model"])
		second, _ := json.Marshal(api.requests[1]["messages"])
		api.mu.Unlock()
		assert.Contains(t, string(second), `"tool_use_id":"toolu_1"`)

		// The host's log goes to the configured file, not to stdout.
		logText, err := os.ReadFile(logFile)
		require.NoError(t, err)
		assert.Contains(t, string(logText), "magenta-host serving")

		// Kill the host: one clear message, and Neovim keeps working.
		var info struct {
			Pid int `msgpack:"pid"`
		}
		n.LuaResult(&info, `return (require('magenta.host').request("version"))`)
		pid := info.Pid
		// The host was started directly (not through remote#host); the
		// remote functions are bound to it right after.
		var viaFunction struct {
			Pid int `msgpack:"pid"`
		}
		n.LuaResult(&viaFunction, `return vim.fn.MagentaRequest("version", vim.empty_dict())`)
		assert.Equal(t, pid, viaFunction.Pid, "MagentaRequest reaches the running host")
		require.NoError(t, syscall.Kill(pid, syscall.SIGKILL))
		n.WaitFor("the host-exit message", func() bool {
			return strings.Contains(n.Messages(), "magenta: the host exited")
		}, n.Messages)
		assert.Equal(t, 1, strings.Count(n.Messages(), "the host exited"))

		// The next command starts a fresh host, which draws a new thread.
		n.Command("Magenta new-thread")
		n.WaitForText("display", "# New thread")
		n.LuaResult(&info, `return (require('magenta.host').request("version"))`)
		assert.NotEqual(t, pid, info.Pid)

		// :Magenta restart stops the host quietly; the next command starts
		// another one.
		prev := info.Pid
		n.Command("Magenta restart")
		n.WaitFor("the host to stop", func() bool {
			var running bool
			n.LuaResult(&running, `return require('magenta.host').running()`)
			return !running
		}, n.Messages)
		n.Command("Magenta new-thread")
		n.WaitForText("display", "# New thread")
		n.LuaResult(&info, `return (require('magenta.host').request("version"))`)
		assert.NotEqual(t, prev, info.Pid)
		assert.Equal(t, 1, strings.Count(n.Messages(), "the host exited"), "a restart is not reported as a crash")
	})
}

// A host binary that is not there: the first toggle says so once, with
// how to build it, and Neovim goes on.
func TestMissingHostBinaryIsToldOnce(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, nvimBin string) {
		n := nvimtest.Start(t, nvimBin)
		n.Serve()
		n.Setup(fmt.Sprintf(`{
			profiles = { { name = "x", provider = "anthropic", model = "m" } },
			host = { binary = %q },
		}`, filepath.Join(n.Dir, "no-such-host")))
		n.Command("Magenta toggle")
		n.WaitFor("the message", func() bool { return strings.Contains(n.Messages(), "is missing") }, n.Messages)
		var alive int
		n.LuaResult(&alive, `return 1 + 1`)
		assert.Equal(t, 2, alive)
		assert.Equal(t, 1, strings.Count(n.Messages(), "is missing"), n.Messages())
	})
}

// check-bash through the built binary: verdicts and exit codes.
func TestCheckBashCLI(t *testing.T) {
	bin := nvimtest.HostBinary(t)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "README.md"), []byte("x"), 0o600))
	rules := filepath.Join(dir, "rules.json")
	require.NoError(t, os.WriteFile(rules, []byte(`{"rules":[{"command":"npm","subcommands":["test"],"args":"any"}]}`), 0o600))
	cases := []struct {
		args []string
		out  string
		code int
	}{
		{[]string{"--cwd", dir, "--", "cat README.md | head -5"}, "allow\n", 0},
		{[]string{"--cwd", dir, "--", "rm -rf ~"}, "ask: ", 10},
		{[]string{"--cwd", dir, "--config", rules, "--", "npm", "test"}, "allow\n", 0},
		{[]string{"--cwd", dir, "--", "npm test"}, "ask: runs `npm`", 10},
		{[]string{"--cwd", dir, "--sandbox", "--", "npm test"}, "sandbox: runs `npm`", 11},
		{[]string{"--cwd", dir, "--sandbox", "--", "npm publish"}, "ask: matches `npm publish`", 10},
		{[]string{"--cwd", dir}, "", 2},
	}
	for _, c := range cases {
		cmd := exec.Command(bin, append([]string{"check-bash"}, c.args...)...)
		out, _ := cmd.Output()
		assert.Equal(t, c.code, cmd.ProcessState.ExitCode(), c.args)
		assert.True(t, strings.HasPrefix(string(out), c.out), "%v: %q", c.args, out)
	}
}
