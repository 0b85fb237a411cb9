package host_test

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities/docker/dockertest"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/host"
	"github.com/magenta-nvim/magenta/pkg/nvimtest"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
)

// serveSubagents answers every sub-agent's request on its own (it titles
// itself after its prompt when it may, then yields) and hands the user's thread's
// requests to the test.
func serveSubagents(fake *providertest.Fake) chan *providertest.Call {
	parent := make(chan *providertest.Call, 16)
	fake.Serve(func(c *providertest.Call) {
		if !strings.Contains(c.Request.System, "You are a sub-agent") {
			parent <- c
			return
		}
		titles := false
		for _, tool := range c.Request.Tools {
			titles = titles || tool.Name == "thread_title"
		}
		if len(c.Request.Messages) == 1 && titles {
			c.ToolUse("t", "thread_title", map[string]string{"title": "Find " + c.FirstUserText()})
			c.Stop(provider.StopToolUse)
			return
		}
		c.ToolUse("y", "yield_to_parent", map[string]string{"result": "found " + c.FirstUserText()})
		c.Stop(provider.StopToolUse)
	})
	return parent
}

func nextOf(t *testing.T, ch chan *providertest.Call) *providertest.Call {
	t.Helper()
	select {
	case c := <-ch:
		return c
	case <-time.After(30 * time.Second):
		t.Fatal("no request of the user's thread")
		return nil
	}
}

// The spawn call shows a line per sub-agent that opens it; the thread
// list draws sub-agents indented under their parent; a sub-agent's view
// links back.
func TestSubagentsInTheSidebarAndThreadList(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := start(t, bin)
		parent := serveSubagents(fake)
		n.Command("Magenta toggle")
		n.WaitForText("display", "# New thread")
		n.Type("split the work")
		n.Keys("<CR>")
		c := nextOf(t, parent)
		c.ToolUse("tu_1", "thread_title", map[string]string{"title": "Parent"})
		c.ToolUse("spawn_1", "spawn_subagents", map[string]any{"agents": []map[string]any{
			{"prompt": "alpha", "agentType": "explore"}, {"prompt": "beta"},
		}})
		c.Stop(provider.StopToolUse)
		next := nextOf(t, parent)
		text := next.Results()["spawn_1"].Result[0].Text
		assert.Contains(t, text, "(explore): done\nfound alpha")
		assert.Contains(t, text, "(subagent): done\nfound beta")
		next.Reply("all found")
		n.WaitForText("display", "all found")
		n.WaitForText("display", "▸ explore · alpha · done")
		n.WaitForText("display", "▸ subagent · Find beta · done")

		n.Command("Magenta threads")
		n.WaitForText("display", "# Threads")
		n.WaitFor("the sub-agents listed", func() bool {
			return strings.Contains(n.Text(n.Buffer("display")), "Find beta")
		}, func() string { return n.Text(n.Buffer("display")) })
		list := n.Text(n.Buffer("display"))
		indented := regexp.MustCompile(`(?m)^\* 1\. \S+  Parent  .*\n      2\. \S+  alpha  \[fast, idle, \d+ messages, [^\]]+\]\n      3\. \S+  Find beta  \[fast, idle, \d+ messages, [^\]]+\]$`)
		assert.Regexp(t, indented, list, "sub-agents are indented under their parent")

		n.FocusRole("display")
		n.CursorTo("Find beta")
		n.Keys("<CR>")
		child := n.WaitForText("display", "sub-agent of: Parent")
		assert.Contains(t, child, "## user\nbeta")
		n.CursorTo("sub-agent of:")
		n.Keys("<CR>")
		n.WaitForText("display", "all found")
		n.CursorTo("▸ explore")
		n.Keys("<CR>")
		require.Contains(t, n.WaitForText("display", "explore sub-agent of: Parent"), "## user\nalpha")
	})
}

// A sub-agent's command runs in the parent's workspace with the real
// shell, and its approval is answered with <CR> in the parent's view.
func TestSubagentApprovalFromTheParentsView(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := startShell(t, bin)
		parent := make(chan *providertest.Call, 16)
		fake.Serve(func(c *providertest.Call) {
			if !strings.Contains(c.Request.System, "You are a sub-agent") {
				parent <- c
				return
			}
			if len(c.Results()) == 0 {
				c.ToolUse("b", "bash_command", map[string]string{"command": "touch made-by-child && echo done", "description": "mark"})
				c.Stop(provider.StopToolUse)
				return
			}
			c.ToolUse("y", "yield_to_parent", map[string]string{"result": "bash said: " + c.Results()["b"].Result[0].Text})
			c.Stop(provider.StopToolUse)
		})
		n.Type("delegate")
		n.Keys("<CR>")
		c := nextOf(t, parent)
		c.ToolUse("spawn_1", "spawn_subagents", map[string]any{"agents": []map[string]any{{"prompt": "mark the workspace"}}})
		c.Stop(provider.StopToolUse)

		text := n.WaitForText("display", "> YES")
		assert.Contains(t, text, "▸ subagent · mark the workspace · waiting for approval")
		assert.Contains(t, text, "┃ touch made-by-child && echo done")
		n.FocusRole("display")
		n.CursorTo("> YES")
		n.Keys("<CR>")
		next := nextOf(t, parent)
		res := next.Results()["spawn_1"].Result[0].Text
		assert.Contains(t, res, "(subagent): done\nbash said: done")
		assert.FileExists(t, filepath.Join(n.Dir, "made-by-child"), "the child works in the parent's workspace")
		next.Reply("ok")
		n.WaitForText("display", "▸ subagent · mark the workspace · done")
	})
}

// The sub-agent options go from setup() through the Lua checker to the
// host, which describes the user's types to the model; bad ones are named.
func TestSubagentOptionsFromSetup(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n := nvimtest.Start(t, bin)
		fake := providertest.New()
		n.StartHost(host.Options{Version: "test", NewProvider: func(config.Profile) (provider.Provider, error) { return fake, nil }})
		var msg string
		n.LuaResult(&msg, `local ok, err = require('magenta.config').set({ subagents = { agents = { bad = { tools = { 1 } }, [1] = "x" } } }); return err or ""`)
		assert.Contains(t, msg, "option 'subagents.agents.bad.description' is required")
		assert.Contains(t, msg, "option 'subagents.agents.bad.tools' must be a list of strings")
		assert.Contains(t, msg, "option 'subagents.agents' must be a table keyed by name")

		n.Setup(`{
			profiles = { { name = "fast", provider = "anthropic", model = "model-a" } },
			subagents = { maxConcurrent = 2, agents = { docs = { description = "writes the docs", tools = { "get_file" } } } },
		}`)
		n.Command("Magenta toggle")
		n.WaitForText("display", "# New thread")
		n.Type("hi")
		n.Keys("<CR>")
		c := fake.Next(t)
		var desc string
		for _, s := range c.Request.Tools {
			if s.Name == "spawn_subagents" {
				desc = s.Description
			}
		}
		assert.Contains(t, desc, "- `docs`: writes the docs")
		assert.Contains(t, desc, "At most 2 run at once")
		c.Reply("ok")
	})
}

// A sub-agent of a Docker thread works in the same container: its
// command runs there (real engine), and the thread list shows it, under
// its parent, as working in that container too.
func TestSubagentOfADockerThread(t *testing.T) {
	dockertest.Image(t)
	container := dockertest.Start(t)
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := start(t, bin)
		mark := "child-" + strings.ReplaceAll(filepath.Base(bin), ".", "-")
		parent := make(chan *providertest.Call, 16)
		fake.Serve(func(c *providertest.Call) {
			if !strings.Contains(c.Request.System, "You are a sub-agent") {
				parent <- c
				return
			}
			if len(c.Results()) == 0 {
				c.ToolUse("b", "bash_command", map[string]string{"command": "echo " + mark + " > " + mark + " && pwd", "description": "mark"})
				c.Stop(provider.StopToolUse)
				return
			}
			c.ToolUse("y", "yield_to_parent", map[string]string{"result": "ran in " + c.Results()["b"].Result[0].Text})
			c.Stop(provider.StopToolUse)
		})
		n.Command("Magenta toggle")
		n.WaitForText("display", "# New thread")
		n.Command("Magenta new-thread docker " + container + " /tmp")
		n.WaitForText("display", "docker:"+container)
		n.FocusRole("input")
		n.Type("delegate in the container")
		n.Keys("<CR>")
		c := nextOf(t, parent)
		c.ToolUse("spawn_1", "spawn_subagents", map[string]any{"agents": []map[string]any{{"prompt": "leave a mark"}}})
		c.Stop(provider.StopToolUse)
		next := nextOf(t, parent)
		res := next.Results()["spawn_1"].Result[0].Text
		assert.Contains(t, res, "(subagent): done\nran in /tmp")
		assert.Equal(t, mark, dockertest.Docker(t, "exec", container, "cat", "/tmp/"+mark), "the child's command ran in the parent's container")
		next.Reply("ok")
		n.WaitForText("display", "▸ subagent · leave a mark · done")

		n.Command("Magenta threads")
		n.WaitForText("display", "# Threads")
		n.WaitFor("the sub-agent in the container", func() bool {
			return regexp.MustCompile(`(?m)^      \d\. \S+  leave a mark  \[fast, idle, docker:` + container + `, \d+ messages, [^\]]+\]$`).MatchString(n.Text(n.Buffer("display")))
		}, func() string { return n.Text(n.Buffer("display")) })
	})
}
