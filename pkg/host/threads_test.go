package host_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities/docker/dockertest"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/host"
	"github.com/magenta-nvim/magenta/pkg/nvimtest"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
)

// :Magenta delete-thread asks first (a stubbed answer here), deletes
// without asking with !, completes ids, and shows another thread after
// deleting the shown one.
func TestDeleteThreadCommand(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := start(t, bin)
		n.Command("Magenta toggle")
		n.Type("keep me")
		n.Keys("<CR>")
		fake.Next(t).Reply("kept")
		n.WaitForText("display", "kept")
		n.Command("Magenta new-thread")
		n.WaitFor("a new thread", func() bool { return !strings.Contains(n.Text(n.Buffer("display")), "kept") }, n.Messages)
		n.Type("drop me")
		n.Keys("<CR>")
		fake.Next(t).Reply("dropped")
		n.WaitForText("display", "dropped")

		var ids []string
		n.LuaResult(&ids, `return vim.fn.getcompletion("Magenta delete-thread ", "cmdline")`)
		require.Len(t, ids, 2)

		n.Lua(`vim.fn.confirm = function(msg) _G.magenta_asked = msg; return 2 end`)
		n.Command("Magenta delete-thread")
		var asked string
		n.LuaResult(&asked, `return _G.magenta_asked`)
		assert.Equal(t, "magenta: delete the current thread and its saved history?", asked)
		assert.Contains(t, n.Text(n.Buffer("display")), "dropped", "answered No: nothing deleted")

		n.Command("Magenta! delete-thread")
		n.WaitForText("display", "kept")
		n.WaitFor("the deletion notice", func() bool { return strings.Contains(n.Messages(), "magenta: deleted thread") }, n.Messages)
		n.Command("Magenta threads")
		text := n.WaitForText("display", "# Threads")
		assert.NotContains(t, text, "2. ")
		n.LuaResult(&ids, `return vim.fn.getcompletion("Magenta thread ", "cmdline")`)
		assert.Len(t, ids, 1)
	})
}

// A saved Docker thread reopens in its container (commands run there
// again); once the container is gone, it says so and goes on locally.
func TestSavedDockerThreadReopens(t *testing.T) {
	dockertest.Image(t)
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		container := dockertest.Start(t)
		dataDir, work := t.TempDir(), t.TempDir()
		open := func() (*nvimtest.Nvim, *providertest.Fake, *host.Host) {
			n := nvimtest.Start(t, bin, "XDG_DATA_HOME="+dataDir)
			fake := providertest.New()
			h := n.StartHost(host.Options{Version: "test", NewProvider: func(config.Profile) (provider.Provider, error) { return fake, nil }})
			n.Command("cd " + work)
			n.Setup(testOptions)
			n.Command("Magenta toggle")
			return n, fake, h
		}
		n, fake, h := open()
		n.Command("Magenta new-thread docker " + container + " /tmp")
		n.WaitForText("display", "docker:"+container+" · /tmp")
		n.FocusRole("input")
		n.Type("in the box")
		n.Keys("<CR>")
		fake.Next(t).Reply("boxed")
		n.WaitForText("display", "boxed")
		h.Close() // the host exits; its locks go with it

		n, fake, h = open()
		n.Command("Magenta threads")
		n.WaitForText("display", "docker:"+container+", 2 messages")
		n.FocusRole("display")
		n.CursorTo("docker:" + container)
		n.Keys("<CR>")
		text := n.WaitForText("display", "boxed")
		assert.Contains(t, text, "docker:"+container+" · /tmp")
		n.FocusRole("input")
		n.Type("where?")
		n.Keys("<CR>")
		call := fake.Next(t)
		call.ToolUse("tu_p", "bash_command", map[string]string{"command": "pwd && hostname", "description": "where"})
		call.Stop(provider.StopToolUse)
		next := fake.Next(t)
		res, isErr := lastResult(t, next)
		require.False(t, isErr, res)
		assert.Contains(t, res, "/tmp\n"+dockertest.Docker(t, "exec", container, "hostname"))
		next.Reply("there")
		n.WaitForText("display", "there")
		h.Close()

		dockertest.Docker(t, "rm", "-f", container)
		n, fake, _ = open()
		n.Command("Magenta threads")
		n.WaitForText("display", "docker:"+container)
		n.FocusRole("display")
		n.CursorTo("docker:" + container)
		n.Keys("<CR>")
		text = n.WaitForText("display", "cannot be used")
		assert.Contains(t, text, "The thread goes on in the local workspace")
		assert.Contains(t, text, "local · sandbox off")
		n.FocusRole("input")
		n.Type("and now?")
		n.Keys("<CR>")
		call = fake.Next(t)
		assert.Len(t, call.Request.Messages, 7, "the history goes on")
		call.Reply("local now")
		n.WaitForText("display", "local now")
	})
}
