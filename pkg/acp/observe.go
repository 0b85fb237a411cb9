package acp

import (
	"encoding/json"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/magenta-nvim/magenta/pkg/chat"
	"github.com/magenta-nvim/magenta/pkg/chat/view"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// observe turns a session thread's events into session/update
// notifications (a chat.Observer; it never blocks). A sub-agent's events
// are shown in the session call that spawned or waits for it (progress).
func (a *Agent) observe(t *chat.Thread, ev chat.ThreadEvent) {
	a.mu.Lock()
	s := a.sessions[t.ID]
	a.mu.Unlock()
	if s == nil {
		if t.Subagent() {
			a.progress.subagent(t.ID, ev)
		}
		return
	}
	switch ev := ev.(type) {
	case chat.ReplyDelta:
		if ev.Thinking {
			a.out.send(s.id, sdk.UpdateAgentThoughtText(ev.Text))
		} else {
			a.out.send(s.id, sdk.UpdateAgentMessageText(ev.Text))
		}
	case chat.ToolCallStarted:
		a.out.send(s.id, sdk.StartToolCall(sdk.ToolCallId(ev.ID), ev.Name,
			sdk.WithStartKind(toolKind(ev.Name)), sdk.WithStartStatus(sdk.ToolCallStatusInProgress),
			sdk.WithStartRawInput(rawJSON(ev.Input))))
		// Its output may follow now, not before.
		a.progress.started(s.id, ev.ID)
		if ev.Name == "todo_write" {
			if plan, ok := planOf(ev.Input); ok {
				a.out.send(s.id, plan)
			}
		}
	case chat.ToolCallEnded:
		a.progress.ended(s.id, ev.ID) // no output after the result
		status := sdk.ToolCallStatusCompleted
		if ev.Result.IsError {
			status = sdk.ToolCallStatusFailed
		}
		a.out.send(s.id, sdk.UpdateToolCall(sdk.ToolCallId(ev.ID),
			sdk.WithUpdateStatus(status), sdk.WithUpdateContent(toolContent(ev.Result))))
	case chat.TurnEnded:
		// Calls an abort cut short end with the turn: the client is told
		// they failed, rather than left running.
		for _, id := range a.progress.turnEnded(s.id) {
			a.out.send(s.id, sdk.UpdateToolCall(sdk.ToolCallId(id), sdk.WithUpdateStatus(sdk.ToolCallStatusFailed),
				sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock("(interrupted)"))})))
		}
		select {
		case s.ended <- ev:
		default: // nobody waits (a turn the client did not start)
		}
	}
}

// toolContent is what the client shows of a result: its text, and the
// diff of an edit (a unified diff as text: the result has no whole
// before and after).
func toolContent(r tools.Result) []sdk.ToolCallContent {
	out := []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(r.Text))}
	if r.Diff != "" {
		out = append(out, sdk.ToolContent(sdk.TextBlock("```diff\n"+r.Diff+"\n```")))
	}
	return out
}

// toolKind maps magenta's tools to ACP's kinds (the client's icons).
func toolKind(name string) sdk.ToolKind {
	switch name {
	case "get_file", "hover", "find_references", "definition", "document_symbols", "diagnostics":
		return sdk.ToolKindRead
	case "edit_file", "write_file", "rename_symbol", "format_file", "apply_code_action":
		return sdk.ToolKindEdit
	case "bash_command":
		return sdk.ToolKindExecute
	case "grep", "workspace_symbols", "web_search":
		return sdk.ToolKindSearch
	case "web_fetch":
		return sdk.ToolKindFetch
	case "todo_write":
		return sdk.ToolKindThink
	}
	return sdk.ToolKindOther
}

// planOf is todo_write's list as an ACP plan.
func planOf(input json.RawMessage) (sdk.SessionUpdate, bool) {
	var p tools.TodoParams
	if json.Unmarshal(input, &p) != nil {
		return sdk.SessionUpdate{}, false
	}
	entries := make([]sdk.PlanEntry, len(p.Todos))
	for i, t := range p.Todos {
		status := sdk.PlanEntryStatusPending
		switch t.Status {
		case "in_progress":
			status = sdk.PlanEntryStatusInProgress
		case "done":
			status = sdk.PlanEntryStatusCompleted
		}
		entries[i] = sdk.PlanEntry{Content: t.Content, Priority: sdk.PlanEntryPriorityMedium, Status: status}
	}
	return sdk.UpdatePlan(entries...), true
}

// screen is the App's screen: an ACP client draws from the updates.
type screen struct{}

func (screen) Publish(string, *view.Frame)                 {}
func (screen) Show(string)                                 {}
func (screen) BindingAt(int, view.Key) (view.Action, bool) { return view.Action{}, false }
func (screen) Notify(string, chat.Level)                   {}
func (screen) NotifyIfHidden(string)                       {}
func (screen) OpenFile(string, int)                        {}

var _ chat.Screen = screen{}

// Permission option ids.
const (
	optionYes    = "yes"
	optionAlways = "always"
	optionNo     = "no"
)

// declinedUnanswered is what the model reads when the client gave no
// answer (it failed, or the prompt was cancelled).
const declinedUnanswered = "the editor did not answer the request for approval"
