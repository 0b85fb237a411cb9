package chat

import (
	"context"
	"errors"

	"github.com/magenta-nvim/magenta/pkg/approval"
	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/chat/view"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// KindPlan is the approval kind of a plan presented with exit_plan_mode.
const KindPlan = "plan"

// planTools are the tools offered in plan mode: what reads, searches
// and asks language servers, the todo list, bash_command (which runs
// only what the checker proves read-only: capabilities.WithReadOnly),
// and exit_plan_mode. Edits, writes, language-server edits, sub-agents
// (they would write) and MCP tools (unknown) wait for an approved plan.
var planTools = map[string]bool{
	"get_file": true, "grep": true, "hover": true, "find_references": true, "diagnostics": true,
	"definition": true, "document_symbols": true, "workspace_symbols": true, "code_actions": true, "web_fetch": true, tools.WebSearchName: true,
	"thread_title": true, "todo_write": true, "skill": true, "bash_command": true,
	"wait_for_subagents": true, tools.ExitPlanModeName: true,
}

// planModeHeader is what the header says while the thread plans.
const planModeHeader = "plan mode: read-only tools until you approve a plan (:Magenta plan leaves it)"

// msgPlanMode turns plan mode on or off; approved says an approved plan
// ended it.
type msgPlanMode struct{ on, approved bool }

// SetPlanMode turns plan mode on or off for the thread.
func (t *Thread) SetPlanMode(on bool) { t.enqueue(msgPlanMode{on: on}) }

// TogglePlanMode turns plan mode on or off for the shown thread.
func (a *App) TogglePlanMode() {
	a.do(func() {
		t := a.active
		t.enqueue(msgQuery{func() { t.onPlanMode(msgPlanMode{on: !t.planning}) }})
	})
}

func (t *Thread) onPlanMode(m msgPlanMode) {
	if m.on == t.planning {
		return
	}
	t.planning = m.on
	t.dirty = true
	switch {
	case m.on:
		t.notice(view.NoticeInfo, "plan mode: the agent reads and plans, and presents its plan for your approval before it edits files or runs commands that write")
	case m.approved:
		t.notice(view.NoticeInfo, "plan approved: plan mode is over")
	default:
		t.notice(view.NoticeInfo, "plan mode is over")
	}
}

// planFilter keeps, in plan mode, only the tools planTools names, and
// adds exit_plan_mode (which the registry never offers by itself).
func (t *Thread) planFilter(specs []tools.Spec) []tools.Spec {
	if !t.planning {
		return specs
	}
	out := specs[:0:0]
	for _, s := range specs {
		if planTools[s.Name] {
			out = append(out, s)
		}
	}
	if exit, ok := t.deps.Tools.Tool(tools.ExitPlanModeName); ok {
		out = append(out, exit.Spec())
	}
	return out
}

// ExitPlan shows plan to the user in the call's block and waits for the
// answer (tools.PlanControl); approved ends plan mode.
func (t *Thread) ExitPlan(ctx context.Context, toolUseID, plan string) (bool, error) {
	if t.deps.Broker == nil {
		return false, errors.New("this thread cannot ask the user")
	}
	d, err := t.deps.Broker.Ask(ctx, approval.Request{
		ThreadID: t.ID, ToolUseID: toolUseID, Kind: KindPlan, Subject: plan, NoAlways: true,
		Reason: "the agent's plan: approve it to end plan mode and let it edit files and run commands",
	})
	if err != nil {
		return false, err
	}
	if d != approval.Allow && d != approval.AllowAlways {
		return false, nil
	}
	t.enqueue(msgPlanMode{on: false, approved: true})
	return true, nil
}

var _ tools.PlanControl = (*Thread)(nil)

// withPlan marks a tool call's context read-only in plan mode.
func (t *Thread) withPlan(ctx context.Context) context.Context {
	if t.planning {
		return capabilities.WithReadOnly(ctx)
	}
	return ctx
}
