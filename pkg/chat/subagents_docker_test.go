package chat

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities/docker"
	"github.com/magenta-nvim/magenta/pkg/capabilities/docker/dockertest"
	"github.com/magenta-nvim/magenta/pkg/capabilities/localshell"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
)

// A sub-agent of a thread working in a Docker container works in the same
// container: its bash_command runs there, against the real engine.
func TestSubagentOfADockerThreadRunsInItsContainer(t *testing.T) {
	name := dockertest.Start(t)
	env, err := docker.NewEnvironment(context.Background(), docker.Config{Container: name, Cwd: "/tmp"}, localshell.Options{LogRoot: t.TempDir()})
	require.NoError(t, err)
	h := newAgentHarnessIn(t, env, nil, config.Subagents{}, nil, func(c *providertest.Call) {
		if len(c.Results()) == 0 {
			c.ToolUse("b", "bash_command", map[string]string{"command": "echo from-child > child-was-here && pwd"})
			c.Stop(provider.StopToolUse)
			return
		}
		out, _ := json2text(c)
		yieldTo(c, out)
	})
	h.spawn(t, map[string]any{"agents": agents("leave a mark")})
	next := h.nextParent(t)
	text, _ := resultText(t, next, "spawn_1")
	assert.Contains(t, text, "(subagent): done")
	assert.Contains(t, text, "/tmp", "the child works in the parent's directory in the container")
	assert.Equal(t, "from-child", strings.TrimSpace(dockertest.Docker(t, "exec", name, "cat", "/tmp/child-was-here")))
	next.Reply("ok")
}
