package chat

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/chat/view"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
)

// In plan mode the model gets read-only tools and exit_plan_mode; a
// write is refused, and so is a command the checker does not prove
// read-only; the plan is drawn as an approval, and YES ends plan mode:
// the next request offers the edits again.
func TestPlanModeGatesEditsUntilThePlanIsApproved(t *testing.T) {
	h := newAgentHarness(t, config.Subagents{}, nil, func(c *providertest.Call) {})
	h.app.TogglePlanMode()
	h.screen.waitForText(t, "plan mode: read-only tools until you approve a plan")
	h.app.Send("plan the change")
	c := h.nextParent(t)
	names := toolNames(c)
	assert.Contains(t, names, "exit_plan_mode")
	assert.Contains(t, names, "get_file")
	assert.Contains(t, names, "bash_command")
	assert.NotContains(t, names, "write_file")
	assert.NotContains(t, names, "spawn_subagents")
	c.ToolUse("w", "write_file", map[string]string{"path": "x.txt", "content": "x"})
	c.ToolUse("b", "bash_command", map[string]string{"command": "touch x.txt"})
	c.ToolUse("l", "bash_command", map[string]string{"command": "ls"})
	c.Stop(provider.StopToolUse)
	next := h.nextParent(t)
	res, isErr := resultText(t, next, "w")
	assert.True(t, isErr)
	assert.Contains(t, res, "not offered")
	res, isErr = resultText(t, next, "b")
	assert.True(t, isErr)
	assert.Contains(t, res, "plan mode: only commands that only read may run")
	res, isErr = resultText(t, next, "l")
	assert.False(t, isErr, res)

	next.ToolUse("p", "exit_plan_mode", map[string]string{"plan": "1. Edit x.txt\n2. Run the tests"})
	next.Stop(provider.StopToolUse)
	text := h.screen.waitForText(t, "> YES")
	assert.Contains(t, text, "┃ 1. Edit x.txt")
	assert.NotContains(t, text, "> ALWAYS")
	h.app.Key(view.KeyActivate, h.screen.lineOf(t, "> YES"))
	after := h.nextParent(t)
	res, isErr = resultText(t, after, "p")
	require.False(t, isErr, res)
	assert.Contains(t, res, "The user approved the plan")
	assert.True(t, slices.Contains(toolNames(after), "write_file"), "the edits are offered again")
	assert.NotContains(t, toolNames(after), "exit_plan_mode")
	after.Reply("doing it")
	text = h.screen.waitForText(t, "doing it")
	assert.NotContains(t, text, "plan mode: read-only tools")
}
