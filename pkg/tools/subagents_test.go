package tools

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
)

// fakeSubagents records what the tools ask of the thread.
type fakeSubagents struct {
	spawned  []SpawnRequest
	waited   []string
	yielded  string
	spawnErr error
}

func (f *fakeSubagents) Spawn(_ context.Context, reqs []SpawnRequest) ([]string, error) {
	f.spawned = append(f.spawned, reqs...)
	ids := make([]string, len(reqs))
	for i := range reqs {
		ids[i] = "id" + string(rune('1'+i))
	}
	return ids, f.spawnErr
}

func (f *fakeSubagents) Wait(_ context.Context, ids []string) ([]SubagentResult, error) {
	f.waited = append(f.waited, ids...)
	out := make([]SubagentResult, len(ids))
	for i, id := range ids {
		out[i] = SubagentResult{ID: id, AgentType: "explore", State: SubagentDone, Text: "answer " + id}
	}
	return out, nil
}

func (f *fakeSubagents) Yield(result string) error {
	f.yielded = result
	return nil
}

func runTool(tool Tool, s Subagents, input string) Result {
	return tool.Run(context.Background(), Call{Input: json.RawMessage(input), Subagents: s})
}

func TestSpawnSubagentsBlockingAndNot(t *testing.T) {
	tool := SpawnSubagents([]AgentType{{Name: "subagent", Description: "general"}, {Name: "docs", Description: "writes docs"}}, 3)
	desc := tool.Spec().Description
	assert.Contains(t, desc, "At most 3 run at once")
	assert.Contains(t, desc, "- `docs`: writes docs")
	assert.Contains(t, desc, "(default `subagent`)")

	f := &fakeSubagents{}
	res := runTool(tool, f, `{"agents":[{"prompt":"a","agentType":"explore","contextFiles":["x.go"]},{"prompt":"b"}]}`)
	assert.False(t, res.IsError)
	assert.Equal(t, "## sub-agent id1 (explore): done\nanswer id1\n\n## sub-agent id2 (explore): done\nanswer id2", res.Text)
	assert.Equal(t, "2 done", res.Summary)
	assert.Equal(t, []string{"id1", "id2"}, f.waited, "blocking waits for what it spawned")
	assert.Equal(t, []string{"x.go"}, f.spawned[0].ContextFiles)

	f = &fakeSubagents{}
	res = runTool(tool, f, `{"agents":[{"prompt":"a"}],"blocking":false}`)
	assert.Contains(t, res.Text, "Started 1 sub-agent(s): id1\nCall wait_for_subagents")
	assert.Empty(t, f.waited)

	assert.Contains(t, runTool(tool, f, `{"agents":[]}`).Text, "at least one")
	assert.Contains(t, runTool(tool, f, `{"agents":[{"prompt":"  "}]}`).Text, "agents[0].prompt must not be empty")
	assert.Contains(t, runTool(tool, nil, `{"agents":[{"prompt":"a"}]}`).Text, "cannot spawn")
	f.spawnErr = errors.New("no type \"x\"")
	res = runTool(tool, f, `{"agents":[{"prompt":"a"}]}`)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text, `no type "x"`)
}

func TestWaitAndYield(t *testing.T) {
	f := &fakeSubagents{}
	res := runTool(WaitForSubagents(), f, `{"ids":["a","b"]}`)
	assert.Contains(t, res.Text, "## sub-agent b (explore): done\nanswer b")
	assert.True(t, runTool(WaitForSubagents(), f, `{"ids":[]}`).IsError)

	res = runTool(YieldToParent(), f, `{"result":"42"}`)
	assert.False(t, res.IsError)
	assert.Equal(t, "42", f.yielded)
	assert.True(t, runTool(YieldToParent(), nil, `{"result":"42"}`).IsError)
}

func TestFormatSubagentResultsIsAnErrorOnlyWhenNothingSucceeded(t *testing.T) {
	failed := FormatSubagentResults([]SubagentResult{{ID: "a", AgentType: "x", State: SubagentError, Text: "boom"}, {ID: "b", AgentType: "x", State: SubagentAborted}})
	assert.True(t, failed.IsError)
	assert.Equal(t, "1 error, 1 aborted", failed.Summary)
	mixed := FormatSubagentResults([]SubagentResult{{ID: "a", State: SubagentError}, {ID: "b", State: SubagentDone}})
	assert.False(t, mixed.IsError)
}

func TestDerivedRegistries(t *testing.T) {
	base := Default()
	with := base.With(YieldToParent())
	_, ok := with.Tool("yield_to_parent")
	assert.True(t, ok)
	_, ok = base.Tool("yield_to_parent")
	assert.False(t, ok, "the base is not changed")

	only, missing := base.Only([]string{"get_file", "grep", "nope"})
	assert.Equal(t, []string{"get_file", "grep"}, only.names())
	assert.Equal(t, []string{"nope"}, missing)

}
