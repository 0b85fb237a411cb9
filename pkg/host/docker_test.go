package host_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities/docker/dockertest"
	"github.com/magenta-nvim/magenta/pkg/nvimtest"
	"github.com/magenta-nvim/magenta/pkg/provider"
)

// A thread in a real container: :Magenta new-thread docker, the header
// says where it works, and the model writes, edits, reads and runs a
// command there — without approvals (the container is the boundary) —
// while grep, absent from the image, is not offered.
func TestDockerThreadInARealContainer(t *testing.T) {
	dockertest.Image(t)
	container := dockertest.Start(t)
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := start(t, bin)
		n.Command("Magenta toggle")
		n.WaitForText("display", "# New thread")
		var comp []string
		n.LuaResult(&comp, `return vim.fn.getcompletion("Magenta new-thread docker ", "cmdline")`)
		assert.Contains(t, comp, container, "running containers complete")

		n.Command("Magenta new-thread docker " + container + " /tmp")
		n.WaitForText("display", "docker:"+container+" · /tmp · commands run inside the container without asking")

		n.FocusRole("input")
		n.Type("work in the container")
		n.Keys("<CR>")
		call := fake.Next(t)
		var names []string
		for _, tool := range call.Request.Tools {
			names = append(names, tool.Name)
		}
		assert.Contains(t, names, "bash_command")
		assert.NotContains(t, names, "grep", "the image has no ripgrep")
		assert.NotContains(t, names, "hover", "no language server runs in a container")
		assert.Contains(t, call.Request.System, "/tmp")
		// The model is told it works inside this container, from the
		// user's editor outside it — not only "The workspace is /tmp".
		assert.Contains(t, call.Request.System, `inside the Docker container "`+container+`"`)
		assert.Contains(t, call.Request.System, "The working directory is /tmp inside the container")
		assert.Contains(t, call.Request.System, "runs outside the container")

		call.ToolUse("tu_w", "write_file", map[string]string{"path": "notes.txt", "content": "alpha\nbeta\n"})
		call.Stop(provider.StopToolUse)
		next := fake.Next(t)
		res, isErr := lastResult(t, next)
		require.False(t, isErr, res)

		next.ToolUse("tu_e", "edit_file", map[string]string{"path": "notes.txt", "old_string": "beta", "new_string": "BETA"})
		next.Stop(provider.StopToolUse)
		next = fake.Next(t)
		res, isErr = lastResult(t, next)
		require.False(t, isErr, res)

		// get_file reads in chunks and once more after the end: it failed
		// with "read |0: file already closed" in every Docker thread.
		next.ToolUse("tu_g", "get_file", map[string]string{"path": "notes.txt"})
		next.Stop(provider.StopToolUse)
		next = fake.Next(t)
		res, isErr = lastResult(t, next)
		require.False(t, isErr, res)
		assert.Contains(t, res, "BETA")

		next.ToolUse("tu_b", "bash_command", map[string]string{"command": "cat /tmp/notes.txt && hostname", "description": "inside"})
		next.Stop(provider.StopToolUse)
		next = fake.Next(t)
		res, isErr = lastResult(t, next)
		require.False(t, isErr, res)
		assert.Contains(t, res, "alpha\nBETA")
		assert.Equal(t, "alpha\nBETA", dockertest.Docker(t, "exec", container, "cat", "/tmp/notes.txt"), "the file is in the container (output trimmed)")
		next.Reply("done")
		n.WaitForText("display", "done")

		n.Command("Magenta threads")
		text := n.WaitForText("display", "# Threads")
		assert.True(t, strings.Contains(text, "docker:"+container), text)

		// A container that does not exist: a clear message, no thread.
		n.Command("Magenta new-thread docker no-such-container-xyz")
		n.WaitFor("the error", func() bool {
			return strings.Contains(n.Messages(), "no thread made")
		}, n.Messages)
	})
}

// environment = { type = "docker", … } in setup(): the first thread and
// every :Magenta new-thread without arguments work in the container;
// `:Magenta new-thread local` still makes a local one.
func TestDockerEnvironmentAsTheDefault(t *testing.T) {
	dockertest.Image(t)
	container := dockertest.Start(t)
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, _ := start(t, bin)
		n.Setup(`{ sandbox = { enabled = false }, environment = { type = "docker", container = "` + container + `", cwd = "/tmp" } }`)
		n.Command("Magenta toggle")
		n.WaitForText("display", "docker:"+container+" · /tmp")
		n.Command("Magenta new-thread local")
		n.WaitForText("display", "local · sandbox off")
		n.Command("Magenta new-thread")
		n.WaitForText("display", "docker:"+container+" · /tmp")
		n.Command("Magenta threads")
		text := n.WaitForText("display", "# Threads")
		assert.Equal(t, 2, strings.Count(text, "docker:"+container), text)
	})
}
