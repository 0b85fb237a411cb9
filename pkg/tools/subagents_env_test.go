package tools

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// The description lists the user's environments when there are some, and
// otherwise says only that the free-form ones ask.
func TestSpawnDescriptionEnvironments(t *testing.T) {
	none := SpawnSubagents([]AgentType{{Name: "subagent", Description: "general"}}, 2).Spec().Description
	assert.Contains(t, none, "- `environment` ("+SpawnEnvForms+") runs a sub-agent in a container or on another machine; the user is asked before it starts")
	assert.Contains(t, none, "`docker:<container>[:<dir>]` or `ssh:<host>[:<dir>]`")
	assert.NotContains(t, none, "without asking")
	assert.NotContains(t, none, "{{")

	named := NewSpawnSubagents(SpawnConfig{
		Types:         []AgentType{{Name: "subagent", Description: "general"}},
		Environments:  []SpawnEnvironment{{Name: "box", Where: "docker container dev, /work"}, {Name: "gpu", Where: "ssh gpu-host"}},
		MaxConcurrent: 2,
	}).Spec().Description
	assert.Contains(t, named, "name one of the user's environments, which start without asking:\n  - `box`: docker container dev, /work\n  - `gpu`: ssh gpu-host\n")
	assert.Contains(t, named, "Anything else must be "+SpawnEnvForms+", and the user is asked before that sub-agent starts.")
	assert.Contains(t, named, "its `contextFiles` are read there")
	assert.Contains(t, named, "At most 2 run at once")
}

// A description rebuilt for more types keeps the environments.
func TestSpawnWithMoreKeepsEnvironments(t *testing.T) {
	tool := NewSpawnSubagents(SpawnConfig{
		Types:         []AgentType{{Name: "subagent", Description: "general"}},
		More:          func() []AgentType { return []AgentType{{Name: "reviewer", Description: "reviews"}} },
		Environments:  []SpawnEnvironment{{Name: "box", Where: "docker container dev"}},
		MaxConcurrent: 3,
	})
	reg, err := NewRegistry(tool)
	require.NoError(t, err)
	spec, ok := specNamed(reg.OfferedIn(&capabilities.Environment{Threads: true}), "spawn_subagents")
	require.True(t, ok)
	assert.Contains(t, spec.Description, "- `reviewer`: reviews")
	assert.Contains(t, spec.Description, "  - `box`: docker container dev\n")
}

// The environment field reaches the thread as the model wrote it, and
// the schema describes it.
func TestSpawnPassesEnvironment(t *testing.T) {
	tool := SpawnSubagents([]AgentType{{Name: "subagent", Description: "general"}}, 2)
	assert.Contains(t, string(tool.Spec().InputSchema), `"environment"`)
	f := &fakeSubagents{}
	res := runTool(tool, f, `{"agents":[{"prompt":"a","environment":"ssh:devbox:/srv/app"},{"prompt":"b"}],"blocking":false}`)
	assert.False(t, res.IsError, res.Text)
	require.Len(t, f.spawned, 2)
	assert.Equal(t, "ssh:devbox:/srv/app", f.spawned[0].Environment)
	assert.Equal(t, "", f.spawned[1].Environment)
	assert.True(t, strings.HasPrefix(SpawnEnvForms, "`"+SpawnEnvDocker), "the forms are spelt from the prefixes")
}
