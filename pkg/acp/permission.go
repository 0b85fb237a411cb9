package acp

import (
	"context"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/magenta-nvim/magenta/pkg/approval"
)

// askClient answers an approval through session/request_permission
// (an approval.Policy): YES, ALWAYS (when the request offers it) or NO.
// It blocks the asking tool until the client answers or the turn ends.
func (a *Agent) askClient(ctx context.Context, req approval.Request) (approval.Decision, string, bool) {
	// A sub-agent's question goes to the session it reports to (or the
	// prompt that runs).
	sessionID := a.sessionOf(req.ThreadID)
	// The tool call's start must reach the client before the question
	// about it.
	a.out.flush(ctx)
	title := req.Subject
	if req.Reason != "" {
		title += " — " + req.Reason
	}
	options := []sdk.PermissionOption{{Kind: sdk.PermissionOptionKindAllowOnce, Name: "Yes", OptionId: optionYes}}
	if !req.NoAlways {
		options = append(options, sdk.PermissionOption{Kind: sdk.PermissionOptionKindAllowAlways, Name: "Always", OptionId: optionAlways})
	}
	options = append(options, sdk.PermissionOption{Kind: sdk.PermissionOptionKindRejectOnce, Name: "No", OptionId: optionNo})
	resp, err := a.conn.RequestPermission(ctx, sdk.RequestPermissionRequest{
		SessionId: sdk.SessionId(sessionID),
		ToolCall:  sdk.ToolCallUpdate{ToolCallId: sdk.ToolCallId(req.ToolUseID), Title: sdk.Ptr(title), Kind: sdk.Ptr(toolKindOfApproval(req.Kind))},
		Options:   options,
	})
	if err != nil || resp.Outcome.Selected == nil {
		return approval.Deny, declinedUnanswered, true
	}
	switch string(resp.Outcome.Selected.OptionId) {
	case optionYes:
		return approval.Allow, "", true
	case optionAlways:
		if !req.NoAlways {
			return approval.AllowAlways, "", true
		}
	}
	return approval.Deny, "", true
}

// toolKindOfApproval is the ACP kind of what an approval is about.
func toolKindOfApproval(kind string) sdk.ToolKind {
	switch kind {
	case "bash":
		return sdk.ToolKindExecute
	case "read":
		return sdk.ToolKindRead
	case "write":
		return sdk.ToolKindEdit
	case "web":
		return sdk.ToolKindFetch
	}
	return sdk.ToolKindOther
}
