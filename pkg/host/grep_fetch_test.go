package host_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/nvimtest"
	"github.com/magenta-nvim/magenta/pkg/provider"
)

func TestGrepInTheWorkspaceAndOutside(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := startShell(t, bin)
		require.NoError(t, os.WriteFile(filepath.Join(n.Dir, "notes.txt"), []byte("one\na needle here\nthree\n"), 0o600))
		n.Type("find the needle")
		n.Keys("<CR>")
		call := fake.Next(t)
		call.ToolUse("tu_g", "grep", map[string]any{"pattern": "needle"})
		call.Stop(provider.StopToolUse)
		next := fake.Next(t)
		res, isErr := lastResult(t, next)
		assert.False(t, isErr, res)
		assert.Contains(t, res, "notes.txt\n2: a needle here")
		next.ToolUse("tu_g2", "grep", map[string]any{"pattern": "root", "path": "/etc"})
		next.Stop(provider.StopToolUse)
		text := n.WaitForText("display", "> NO")
		assert.Contains(t, text, "needs approval: searches /etc, outside the workspace")
		assert.Contains(t, text, "> ALWAYS (this path")
		n.FocusRole("display")
		n.CursorTo("> NO")
		n.Keys("<CR>")
		third := fake.Next(t)
		res, isErr = lastResult(t, third)
		assert.True(t, isErr)
		assert.Contains(t, res, "The search was not run: the user declined")
		third.Reply("ok")
	})
}

func TestWebFetchLoopbackAlwaysAsks(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("content-type", "text/html")
		fmt.Fprint(w, `<html><body><nav>menu</nav><h1>Local page</h1><table><tr><th>k</th></tr><tr><td>v</td></tr></table><script>x()</script></body></html>`)
	}))
	defer srv.Close()
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := startShell(t, bin)
		n.Type("fetch it")
		n.Keys("<CR>")
		call := fake.Next(t)
		call.ToolUse("tu_w", "web_fetch", map[string]any{"url": srv.URL + "/page"})
		call.Stop(provider.StopToolUse)
		text := n.WaitForText("display", "> YES")
		assert.Contains(t, text, "a loopback, private or link-local address")
		assert.NotContains(t, text, "> ALWAYS", "local addresses cannot be approved for good")
		n.FocusRole("display")
		n.CursorTo("> YES")
		n.Keys("<CR>")
		next := fake.Next(t)
		res, isErr := lastResult(t, next)
		require.False(t, isErr, res)
		assert.Contains(t, res, "# Local page")
		assert.Contains(t, res, "| k |")
		assert.NotContains(t, res, "menu")
		assert.False(t, strings.Contains(res, "x()"))
		next.Reply("fetched")
		n.WaitForText("display", "fetched")
	})
}
