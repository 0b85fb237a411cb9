package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDecodeSubagents(t *testing.T) {
	const profiles = `"profiles":[{"name":"a","provider":"anthropic","model":"m"},{"name":"cheap","provider":"anthropic","model":"h"}]`
	tests := []struct{ sub, wantErr string }{
		{`{}`, ""},
		{`{"maxConcurrent":2,"maxDepth":2,"fastProfile":"cheap","agents":{"docs":{"description":"writes docs","tools":["get_file"],"profile":"cheap","systemPrompt":"be terse"}}}`, ""},
		{`{"maxConcurrent":-1}`, "subagents.maxConcurrent: must be positive"},
		{`{"maxDepth":4}`, "subagents.maxDepth: must be between 0 and 3"},
		{`{"fastProfile":"nope"}`, `subagents.fastProfile: no profile is called "nope"`},
		{`{"agents":{"explore":{"description":"x"}}}`, `subagents.agents.explore: "explore" is a built-in type`},
		{`{"agents":{"docs":{}}}`, "subagents.agents.docs.description: must be a non-empty string"},
		{`{"agents":{"docs":{"description":"d","profile":"nope"}}}`, `subagents.agents.docs.profile: no profile is called "nope"`},
		{`{"agents":{"docs":{"description":"d","tools":[""]}}}`, "subagents.agents.docs.tools[1]: must be a tool name"},
		{`{"agents":[]}`, "magenta options: json"},
	}
	for _, tt := range tests {
		_, err := Decode([]byte(`{` + profiles + `,"subagents":` + tt.sub + `}`))
		if tt.wantErr == "" {
			assert.NoError(t, err, tt.sub)
		} else {
			assert.ErrorContains(t, err, tt.wantErr, tt.sub)
		}
	}
}

func TestSubagentDefaults(t *testing.T) {
	o, err := Decode([]byte(`{"profiles":[{"name":"a","provider":"anthropic","model":"m"}],"subagents":{"agents":{"b":{"description":"x"},"a":{"description":"y"}}}}`))
	require.NoError(t, err)
	assert.Equal(t, DefaultMaxConcurrentSubagents, o.Subagents.Concurrency())
	assert.Equal(t, 0, o.Subagents.MaxDepth, "no depth given: no spawning (setup() sends its default, 1)")
	assert.Equal(t, []string{"a", "b"}, o.Subagents.AgentNames())
}
