package host_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/magenta-nvim/magenta/pkg/capabilities/docker/dockertest"
	"github.com/magenta-nvim/magenta/pkg/nvimtest"
)

// In a Docker thread, setup()'s hooks run inside the container, where
// the thread's files are: they read the event on stdin there, see
// CLAUDE_PROJECT_DIR as the container's directory, and one that hangs
// is ended inside the container at its timeout.
func TestHooksRunInTheContainer(t *testing.T) {
	dockertest.Image(t)
	container := dockertest.Start(t)
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		setup := `hooks = { PreToolUse = { { matcher = "bash_command", hooks = {
			{ type = "command", command = "cat > /tmp/hook-input.json; echo \"$CLAUDE_PROJECT_DIR\" > /tmp/hook-dir" },
			{ type = "command", command = "sleep 300", timeout = 1 },
		} } } },`
		n, fake := startProjectWith(t, bin, nil, setup, nil)
		n.Command("Magenta new-thread docker " + container + " /tmp")
		n.WaitForText("display", "docker:"+container+" · /tmp")
		first := send(t, n, fake, "work in the container")
		next := bashCall(t, fake, first, "echo from-the-call")
		out, isErr := toolResult(t, next, "b1")
		assert.False(t, isErr, out)
		assert.Contains(t, out, "from-the-call", "the call ran after its hooks")
		next.Reply("done")
		n.WaitForText("display", "timed out after 1s and was stopped")
		in := dockertest.Docker(t, "exec", container, "cat", "/tmp/hook-input.json")
		assert.Contains(t, in, `"tool_name":"bash_command"`)
		assert.Contains(t, in, `"tool_input":{"command":"echo from-the-call"}`)
		assert.Equal(t, "/tmp", dockertest.Docker(t, "exec", container, "cat", "/tmp/hook-dir"))
		n.WaitFor("the hanging hook to end in the container", func() bool {
			return !strings.Contains(dockertest.Docker(t, "exec", container, "ps"), "sleep 300")
		}, func() string { return dockertest.Docker(t, "exec", container, "ps") })
	})
}
