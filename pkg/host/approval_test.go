package host_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/nvimtest"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
)

// startShell opens the sidebar with command logs under the test's
// directory; commands run with the real local shell in n.Dir, without
// the sandbox (these tests are about approvals: sandbox_test.go has the
// confined runs).
func startShell(t testing.TB, bin string) (*nvimtest.Nvim, *providertest.Fake) {
	n, fake := start(t, bin)
	n.Setup(`{ shell = { logRoot = "` + filepath.Join(n.Dir, "logs") + `" }, sandbox = { enabled = false } }`)
	n.Command("Magenta toggle")
	n.WaitForText("display", "# New thread")
	return n, fake
}

// askBash makes the model call bash_command and returns the call, whose
// next request will carry the result.
func askBash(t *testing.T, n *nvimtest.Nvim, fake *providertest.Fake, command, id string) {
	n.Type("please run it")
	n.Keys("<CR>")
	call := fake.Next(t)
	call.ToolUse(id, "bash_command", map[string]string{"command": command, "description": "test " + id})
	call.Stop(provider.StopToolUse)
}

// lastResult returns the text of the tool result in the request.
func lastResult(t *testing.T, c *providertest.Call) (string, bool) {
	msgs := c.Request.Messages
	last := msgs[len(msgs)-1]
	for _, b := range last.Content {
		if b.Kind == provider.BlockToolResult {
			return b.Result[0].Text, b.IsError
		}
	}
	t.Fatalf("no tool result in the last message: %+v", last)
	return "", false
}

func TestApproveWithEnterOnYes(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := startShell(t, bin)
		askBash(t, n, fake, "touch made-by-agent && echo done", "tu_1")
		text := n.WaitForText("display", "> YES")
		assert.Contains(t, text, "┃ touch made-by-agent && echo done")
		assert.Contains(t, text, "needs approval: runs `touch`")
		_, err := os.Stat(filepath.Join(n.Dir, "made-by-agent"))
		require.True(t, os.IsNotExist(err), "nothing runs before the answer")

		n.FocusRole("display")
		n.CursorTo("> YES")
		n.Keys("<CR>")
		next := fake.Next(t)
		res, isErr := lastResult(t, next)
		assert.False(t, isErr)
		assert.Contains(t, res, "done\nexit code 0")
		assert.FileExists(t, filepath.Join(n.Dir, "made-by-agent"))
		next.Reply("ok")
		text = n.WaitForText("display", "✓ bash_command: test tu_1 — exit code 0")
		assert.NotContains(t, text, "> YES")
		assert.Contains(t, text, "log: "+filepath.Join(n.Dir, "logs", "threads"))
	})
}

func TestDenyWithKeyInTheRequest(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := startShell(t, bin)
		askBash(t, n, fake, "rm -rf important", "tu_2")
		n.WaitForText("display", "> NO")
		// Away from the request the key answers nothing and says so; on
		// any line of the request it answers it.
		n.FocusRole("display")
		n.Keys("gg")
		n.Keys("d")
		waitMessage(n, "the cursor is on no approval, so nothing was answered")
		n.CursorTo("needs approval")
		n.Keys("d")
		next := fake.Next(t)
		res, isErr := lastResult(t, next)
		assert.True(t, isErr)
		assert.Equal(t, "The command was not run: the user declined to run it.", res)
		next.Reply("understood")
		n.WaitForText("display", "not run: the user declined")
	})
}

func TestAlwaysRemembersTheExactCommand(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := startShell(t, bin)
		askBash(t, n, fake, "touch a-file", "tu_3")
		n.WaitForText("display", "> ALWAYS")
		n.FocusRole("display")
		n.CursorTo("> ALWAYS")
		n.Keys("<CR>")
		next := fake.Next(t)
		next.ToolUse("tu_4", "bash_command", map[string]string{"command": "touch a-file"})
		next.Stop(provider.StopToolUse)
		third := fake.Next(t) // no approval needed the second time
		res, _ := lastResult(t, third)
		assert.Contains(t, res, "exit code 0")
		third.Reply("done")
		n.WaitForText("display", "done")
	})
}

func TestTerminateRunningCommand(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := startShell(t, bin)
		askBash(t, n, fake, "echo started; sleep 30", "tu_5")
		n.WaitForText("display", "> YES")
		n.FocusRole("display")
		n.CursorTo("┃ echo started")
		n.Keys("a")
		n.WaitForText("display", "│ started")
		n.WaitFor("the timer", func() bool {
			return strings.Contains(n.Text(n.Buffer("display")), "of 2m0s")
		}, func() string { return n.Text(n.Buffer("display")) })
		n.CursorTo("bash_command")
		n.Keys("x")
		next := fake.Next(t)
		res, isErr := lastResult(t, next)
		assert.True(t, isErr)
		assert.Contains(t, res, "terminated by the user")
		next.Reply("ok")
	})
}

func TestAbortDeclinesPendingApproval(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := startShell(t, bin)
		askBash(t, n, fake, "touch never", "tu_6")
		n.WaitForText("display", "> YES")
		n.Command("Magenta abort")
		n.WaitForText("display", "ℹ aborted")
		n.WaitFor("the approval to disappear", func() bool {
			return !strings.Contains(n.Text(n.Buffer("display")), "> YES")
		}, func() string { return n.Text(n.Buffer("display")) })
		_, err := os.Stat(filepath.Join(n.Dir, "never"))
		assert.True(t, os.IsNotExist(err))
	})
}

func TestHiddenSidebarNotifiesAndLogOpens(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := startShell(t, bin)
		n.Type("go")
		n.Keys("<CR>")
		call := fake.Next(t)
		n.Command("Magenta toggle") // close the sidebar
		call.ToolUse("tu_7", "bash_command", map[string]string{"command": "echo hidden > out.txt"})
		call.Stop(provider.StopToolUse)
		n.WaitFor("a notification about the approval", func() bool {
			return strings.Contains(n.Messages(), "magenta: waiting for your approval: echo hidden > out.txt")
		}, n.Messages)

		n.Command("Magenta toggle")
		n.FocusRole("display")
		n.CursorTo("> YES")
		n.Keys("<CR>")
		fake.Next(t).Reply("written")
		n.WaitForText("display", "written")
		n.FocusRole("display")
		n.CursorTo("log: ")
		n.Keys("<CR>")
		n.WaitFor("the log in a normal window", func() bool {
			var name string
			n.LuaResult(&name, `return vim.api.nvim_buf_get_name(0)`)
			return strings.HasSuffix(name, "bashCommand.log")
		}, func() string { var name string; n.LuaResult(&name, `return vim.api.nvim_buf_get_name(0)`); return name })
		var first string
		n.LuaResult(&first, `return vim.api.nvim_buf_get_lines(0, 0, 1, false)[1]`)
		assert.Equal(t, "$ echo hidden > out.txt", first)
		var role bool
		n.LuaResult(&role, `return pcall(vim.api.nvim_buf_get_var, 0, "magenta_role")`)
		assert.False(t, role, "the log is not opened in the sidebar")
	})
}
