package view

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/magenta-nvim/magenta/pkg/goldentest"
)

// A spawn call draws one line per sub-agent that opens its thread, with a
// sub-agent's approval under its line answering to the sub-agent; a
// sub-agent's header links back to its parent.
func TestGoldenSubagents(t *testing.T) {
	f := &Frame{Sections: []*Section{
		RenderHeader("header", 1, Header{Title: "Find the parser", Profile: "claude", Provider: "anthropic", Model: "m",
			ParentID: "P", ParentTitle: "Fix the parser", AgentType: "explore", ActivateKey: "<CR>"}),
		RenderToolCall("T", "e1", 1, ToolCall{Name: "spawn_subagents", Status: ToolRunning, Running: "12s", Subagents: []SubagentLine{
			{ID: "C1", Type: "explore", Label: "Find the parser", State: "done", Detail: "9s · 1.2k tokens"},
			{ID: "C2", Type: "subagent", Label: SubagentLabel("run the tests\nand tell me which fail and why, with the first error of each"), State: "running", Detail: "12s",
				Approval: &Approval{ID: "a3", Subject: "make test", Reason: "runs `make`", Always: "this exact command, every thread, until Neovim exits", Keys: DefaultApprovalKeys}},
			{ID: "C3", Type: "fast", Label: "count lines", State: "queued"},
			{ID: "C4", Type: "fast", Label: "x", State: "aborted"},
			{ID: "C5", Type: "subagent", Label: "build on the box", Env: "ssh:devbox:/srv/app", State: "running", Detail: "3s"},
		}}),
	}}
	goldentest.Assert(t, "testdata/subagents.golden", dump(f))
}

func TestThreadListNestsSubagents(t *testing.T) {
	f := RenderThreadList([]ThreadSummary{
		{ID: "0193a1b2-c3d4-7aaa-8000-000000000001", Title: "Parent", Status: "busy", Profile: "p"},
		{ID: "0193a1b2-c3d4-7aaa-8000-000000000002", Title: "Other", Status: "idle", Profile: "p"},
		{ID: "0193a1b2-c3d4-7aaa-8000-000000000003", Title: "Child", Status: "busy", Profile: "p", ParentID: "0193a1b2-c3d4-7aaa-8000-000000000001"},
		{ID: "0193a1b2-c3d4-7aaa-8000-000000000004", Title: "Grandchild", Status: "busy", Profile: "p", ParentID: "0193a1b2-c3d4-7aaa-8000-000000000003"},
		{ID: "0193a1b2-c3d4-7aaa-8000-000000000005", Title: "Orphan", Status: "idle", Profile: "p", ParentID: "gone"},
	}, "", "<CR>", 1)
	texts := f.Texts()[3:]
	assert.Equal(t, []string{
		"  1. 0193a1b2-c3d4-7aaa-8000-000000000001  Parent  [p, busy]",
		"      2. 0193a1b2-c3d4-7aaa-8000-000000000003  Child  [p, busy]",
		"          3. 0193a1b2-c3d4-7aaa-8000-000000000004  Grandchild  [p, busy]",
		"  4. 0193a1b2-c3d4-7aaa-8000-000000000002  Other  [p, idle]",
		"  5. 0193a1b2-c3d4-7aaa-8000-000000000005  Orphan  [p, idle]",
	}, texts)
	action, ok := f.BindingAt(4, KeyActivate)
	assert.True(t, ok)
	assert.Equal(t, "0193a1b2-c3d4-7aaa-8000-000000000003", action.Arg, "the numbering and bindings follow the nested order")
}

// The thread list and a sub-agent's header name the configured activate
// key, never a placeholder; with the key disabled they name the command.
func TestActivateKeyIsNamedAsConfigured(t *testing.T) {
	assert.Equal(t, "<Space> on a thread opens it, as does :Magenta thread <id>", RenderThreadList(nil, "", "<Space>", 1).Texts()[1])
	assert.Equal(t, ":Magenta thread <id> opens a thread", RenderThreadList(nil, "", "", 1).Texts()[1])
	lines, _ := appendParentLink(nil, nil, Header{ParentID: "P", ParentTitle: "T", AgentType: "explore"})
	assert.Equal(t, "explore sub-agent of: T (:Magenta thread P opens it)", lines[0].Text)
	for _, l := range append(RenderThreadList(nil, "", "", 1).Texts(), lines[0].Text) {
		assert.NotContains(t, l, "<activate>")
	}
}
