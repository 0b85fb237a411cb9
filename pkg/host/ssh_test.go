package host_test

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities/docker/dockertest"
	"github.com/magenta-nvim/magenta/pkg/capabilities/sshenv/sshtest"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/host"
	"github.com/magenta-nvim/magenta/pkg/nvimtest"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
)

// A thread on another machine, against a real sshd and the real OpenSSH
// client: :Magenta new-thread ssh completes the config's hosts and makes
// the thread, whose header says where it works and that nothing is
// confined there; the model reads a remote file, runs an allowed `ls`
// without a question, a `touch` only once the user approves it with the
// key, and edits a file there. After the host restarts, the saved thread
// reopens on the same machine and runs a command there again.
func TestSSHThreadEndToEnd(t *testing.T) {
	srv := sshtest.Start(t)
	var run atomic.Int32
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		dir := fmt.Sprintf("/home/dev/proj%d", run.Add(1))
		sshtest.Docker(t, "exec", "-u", "dev", srv.Container, "sh", "-c", "mkdir -p "+dir+" && printf 'alpha\\nbeta\\n' > "+dir+"/notes.txt")
		dataDir, work := t.TempDir(), t.TempDir()
		open := func() (*nvimtest.Nvim, *providertest.Fake, *host.Host) {
			n := nvimtest.Start(t, bin, "XDG_DATA_HOME="+dataDir)
			fake := providertest.New()
			h := n.StartHost(host.Options{Version: "test", SSHConfig: srv.Config, SSHAgentDir: sshtest.AgentDir(t),
				NewProvider: func(config.Profile) (provider.Provider, error) { return fake, nil }})
			n.Command("cd " + work)
			n.Setup(testOptions)
			n.Command("Magenta toggle")
			n.WaitForText("display", "# New thread")
			return n, fake, h
		}
		n, fake, h := open()
		var comp []string
		n.LuaResult(&comp, `return vim.fn.getcompletion("Magenta new-thread ssh ", "cmdline")`)
		assert.Equal(t, []string{sshtest.Alias}, comp, "the config's hosts complete")

		banner := "ssh:" + sshtest.Alias + " · " + dir + " · no sandbox on the remote host: commands the checker does not allow ask first"
		n.Command("Magenta new-thread ssh " + sshtest.Alias + " " + dir)
		n.WaitForText("display", banner)
		n.FocusRole("input")
		n.Type("work there")
		n.Keys("<CR>")
		call := fake.Next(t)
		assert.Contains(t, call.Request.System, `You work on the machine "`+sshtest.Alias+`", reached over SSH`)
		assert.Contains(t, call.Request.System, "The working directory is "+dir+" on that machine")

		// Each step: the model calls a tool; the next request carries
		// its result.
		step := func(c *providertest.Call, id, tool string, input map[string]string) *providertest.Call {
			t.Helper()
			c.ToolUse(id, tool, input)
			c.Stop(provider.StopToolUse)
			return fake.Next(t)
		}
		next := step(call, "tu_g", "get_file", map[string]string{"path": "notes.txt"})
		res, isErr := lastResult(t, next)
		require.False(t, isErr, res)
		assert.Contains(t, res, "alpha")

		next = step(next, "tu_grep", "grep", map[string]string{"pattern": "alph"})
		res, isErr = lastResult(t, next)
		require.False(t, isErr, res)
		assert.Contains(t, res, "notes.txt", "grep searches there with the remote rg")

		next = step(next, "tu_ls", "bash_command", map[string]string{"command": "ls", "description": "list"})
		res, isErr = lastResult(t, next)
		require.False(t, isErr, res)
		assert.Contains(t, res, "notes.txt", "ls runs without asking")

		next.ToolUse("tu_t", "bash_command", map[string]string{"command": "touch made-there", "description": "touch"})
		next.Stop(provider.StopToolUse)
		text := n.WaitForText("display", "> YES")
		assert.Contains(t, text, "┃ touch made-there")
		assert.Contains(t, text, "needs approval: runs `touch`")
		n.FocusRole("display")
		n.CursorTo("> YES")
		n.Keys("a")
		next = fake.Next(t)
		res, isErr = lastResult(t, next)
		require.False(t, isErr, res)
		sshtest.Docker(t, "exec", srv.Container, "sh", "-c", "test -e "+dir+"/made-there") // approved: it ran there

		next = step(next, "tu_e", "edit_file", map[string]string{"path": "notes.txt", "old_string": "beta", "new_string": "BETA"})
		res, isErr = lastResult(t, next)
		require.False(t, isErr, res)
		assert.Equal(t, "alpha\nBETA", sshtest.Docker(t, "exec", srv.Container, "cat", dir+"/notes.txt"))
		next.Reply("done there")
		n.WaitForText("display", "done there")
		h.Close() // the host exits: its connections and locks go with it

		n, fake, _ = open()
		n.Command("Magenta threads")
		n.WaitForText("display", "ssh:"+sshtest.Alias)
		n.FocusRole("display")
		n.CursorTo("ssh:" + sshtest.Alias)
		n.Keys("<CR>")
		text = n.WaitForText("display", "done there")
		n.WaitForText("display", banner)
		n.FocusRole("input")
		n.Type("again")
		n.Keys("<CR>")
		next = step(fake.Next(t), "tu_c", "bash_command", map[string]string{"command": "cat notes.txt && pwd", "description": "again"})
		res, isErr = lastResult(t, next)
		require.False(t, isErr, res)
		assert.Contains(t, res, "alpha\nBETA\n"+dir, "the reopened thread runs on the remote machine")
		assert.False(t, strings.Contains(text, "cannot be used"), text)
		next.Reply("still there")
		n.WaitForText("display", "still there")
	})
}

// :Magenta new-thread docker --context NAME: contexts complete after
// --context, then that context's containers; the thread works on that
// engine, and its header and the thread list name the context.
func TestDockerThreadOnAContext(t *testing.T) {
	dockerContext := dockertest.Context(t)
	container := dockertest.Start(t)
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, _ := start(t, bin)
		n.Command("Magenta toggle")
		n.WaitForText("display", "# New thread")
		var comp []string
		n.LuaResult(&comp, `return vim.fn.getcompletion("Magenta new-thread docker ", "cmdline")`)
		assert.Contains(t, comp, "--context")
		n.LuaResult(&comp, `return vim.fn.getcompletion("Magenta new-thread docker --context ", "cmdline")`)
		assert.Contains(t, comp, dockerContext)
		n.LuaResult(&comp, `return vim.fn.getcompletion("Magenta new-thread docker --context `+dockerContext+` ", "cmdline")`)
		assert.Contains(t, comp, container)

		n.Command("Magenta new-thread docker --context " + dockerContext + " " + container + " /tmp")
		n.WaitForText("display", "docker:"+dockerContext+"/"+container+" · /tmp · commands run inside the container without asking")
		n.Command("Magenta new-thread docker --context no-such-context-xyz " + container)
		n.WaitFor("the error", func() bool { return strings.Contains(n.Messages(), "no thread made") }, n.Messages)
	})
}
