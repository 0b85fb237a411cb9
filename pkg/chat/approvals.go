package chat

import (
	"log/slog"

	"github.com/magenta-nvim/magenta/pkg/approval"
	"github.com/magenta-nvim/magenta/pkg/chat/view"
)

// onApprovals draws the thread's pending approvals inside the tool calls
// that wait for them.
func (t *Thread) onApprovals() {
	if t.deps.Broker == nil {
		return
	}
	t.onWorkspaceApproval()
	if t.turn == nil {
		return
	}
	byTool := map[string]approval.Request{}
	for _, r := range t.deps.Broker.Pending(t.ID) {
		if _, seen := byTool[r.ToolUseID]; !seen {
			byTool[r.ToolUseID] = r
		}
	}
	for _, e := range t.turn.pending {
		var want *view.Approval
		if r, ok := byTool[e.toolID]; ok {
			want = t.viewApproval(r)
		}
		if !sameApproval(e.tool.Approval, want) {
			e.tool.Approval = want
			t.touch(e)
		}
	}
}

// onWorkspaceApproval draws, at the top of the thread, the oldest
// question asked of the workspace rather than of a tool call (a request
// without a thread: whether to trust the project's .mcp.json).
func (t *Thread) onWorkspaceApproval() {
	var want *view.Approval
	for _, r := range t.deps.Broker.Pending("") {
		if r.ThreadID == "" {
			want = t.viewApproval(r)
			break
		}
	}
	if !sameApproval(t.wsApproval.value, want) || t.wsApproval.section == nil {
		t.wsApproval.value = want
		t.wsApproval.section = view.RenderWorkspaceApproval("workspace-approval", t.nextVersion(), t.ID, want)
		t.dirty = true
		t.unsettle()
	}
}

// viewApproval is r as the thread draws it, with the keys that answer.
func (t *Thread) viewApproval(r approval.Request) *view.Approval {
	keys := view.DefaultApprovalKeys
	if t.deps.ApprovalKeys != nil {
		keys = *t.deps.ApprovalKeys
	}
	return &view.Approval{ID: r.ID, Subject: r.Subject, Reason: r.Reason, Always: alwaysLabel(r), Keys: keys}
}

func sameApproval(a, b *view.Approval) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// answer answers approval id with the choice kind (an action kind).
func (t *Thread) answer(id string, kind view.ActionKind) {
	if t.deps.Broker == nil {
		return
	}
	d := map[view.ActionKind]approval.Decision{
		view.ActionApprove: approval.Allow,
		view.ActionDeny:    approval.Deny,
		view.ActionAlways:  approval.AllowAlways,
	}[kind]
	if !t.deps.Broker.Answer(id, d) {
		slog.Info("approval already answered or withdrawn", "id", id)
	}
}

// alwaysLabel says what ALWAYS would remember, by request kind.
func alwaysLabel(r approval.Request) string {
	if r.NoAlways {
		return ""
	}
	what := map[string]string{"bash": "this exact command", "web": "this origin (scheme, host and port)", "read": "this path", "mcp": "this tool"}[r.Kind]
	if what == "" {
		what = "this request"
	}
	return what + ", every thread, until Neovim exits"
}
