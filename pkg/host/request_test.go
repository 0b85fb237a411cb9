package host_test

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/nvimtest"
)

// luaWithin runs code in n and fails the test when Neovim has not
// answered within the harness deadline (a request nobody answers blocks
// Neovim for good).
func luaWithin(t *testing.T, n *nvimtest.Nvim, result any, code string, args ...any) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- n.V.ExecLua(code, result, args...) }()
	select {
	case err := <-done:
		require.NoError(t, err, code)
	case <-time.After(nvimtest.Wait):
		t.Fatalf("Neovim did not return from %s within %v", code, nvimtest.Wait)
	}
}

// A malformed synchronous request is answered with an error instead of
// leaving Neovim waiting, and a malformed event is reported; the host
// keeps serving.
func TestMalformedRequestsAreAnswered(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, _ := start(t, bin)
		for _, c := range []struct{ args, want string }{
			{`1`, "expected a list of arguments, got int64"},
			{`"version"`, "expected a list of arguments, got string"},
			{`{ x = 1 }`, "expected a list of arguments"},
			{`{ "version" }, 3`, "expected one list of arguments, got 2 values"},
			{`{ 1, 2 }`, "event name must be a string"},
			{`{ "nope" }`, `unknown request "nope"`},
		} {
			var got []any
			luaWithin(t, n, &got, `
				local chan = require('magenta.host').channel()
				return { pcall(vim.rpcrequest, chan, "0:function:MagentaRequest", `+c.args+`) }`)
			require.Len(t, got, 2, c.args)
			assert.Equal(t, false, got[0], c.args)
			assert.Contains(t, got[1], c.want, c.args)
		}
		luaWithin(t, n, nil, `vim.rpcnotify(require('magenta.host').channel(), "0:function:MagentaEvent", 1)`)
		n.WaitFor("the bad event to be reported", func() bool {
			return strings.Contains(n.Messages(), "expected a list of arguments, got int64")
		}, func() string { return "" })

		var pong string
		luaWithin(t, n, &pong, `return vim.rpcrequest(require('magenta.host').channel(), "0:function:MagentaRequest", { "ping" })`)
		assert.Equal(t, "pong", pong)
		var res []any
		luaWithin(t, n, &res, `return { require('magenta.host').request("ping") }`)
		assert.Equal(t, []any{"pong"}, res, "the asynchronous request path answers")
		var failed string
		luaWithin(t, n, &failed, `local res, err = require('magenta.host').request("nope"); return err`)
		assert.Contains(t, failed, `unknown request "nope"`)
	})
}

// :checkhealth with a stopped host (SIGSTOP: it holds its pipe but never
// answers) returns promptly and says the host did not answer.
func TestCheckhealthWithAStoppedHost(t *testing.T) {
	hostBin := nvimtest.HostBinary(t)
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n := nvimtest.Start(t, bin)
		n.Serve()
		n.Setup(`{ host = { binary = "` + hostBin + `", requestTimeout = 300 } }`)
		var info struct {
			Pid int `msgpack:"pid"`
		}
		luaWithin(t, n, &info, `return require('magenta.host').request("version", nil, 10000)`)
		pid := info.Pid
		require.NotZero(t, pid, "the host's pid")
		require.NoError(t, syscall.Kill(pid, syscall.SIGSTOP))
		t.Cleanup(func() {
			_ = syscall.Kill(pid, syscall.SIGCONT)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		})

		var report string
		luaWithin(t, n, &report, `
			vim.cmd("checkhealth magenta")
			return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")`)
		assert.Contains(t, report, `the host did not answer "version" within 300 ms`)
		assert.NotContains(t, report, "ripgrep", "no second request waits again")
	})
}
