package guard

import (
	"context"

	"github.com/magenta-nvim/magenta/pkg/approval"
	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// askUser waits for the user's answer to req. A NO, or a thread aborted
// while it waited, is a *capabilities.DeniedError; declined says what NO
// means for this kind of request, unless the broker's policy said why
// (a headless run that cannot ask). Remembering an ALWAYS is the
// caller's business: what is remembered, and for whom, differs by kind.
func askUser(ctx context.Context, b *approval.Broker, req approval.Request, declined string) (approval.Decision, error) {
	d, why, err := b.AskWhy(ctx, req)
	switch {
	case err != nil:
		return d, &capabilities.DeniedError{What: req.Subject, Reason: "the thread was aborted while it waited for approval"}
	case d == approval.Deny && why != "":
		return d, &capabilities.DeniedError{What: req.Subject, Reason: why}
	case d == approval.Deny:
		return d, &capabilities.DeniedError{What: req.Subject, Reason: declined}
	}
	return d, nil
}

// ask asks and, when rememberable, keeps an ALWAYS for the session
// (searches and fetches); otherwise the ALWAYS choice is not offered.
func ask(ctx context.Context, b *approval.Broker, r *Remembered, req approval.Request, rememberable bool) error {
	req.NoAlways = !rememberable
	d, err := askUser(ctx, b, req, "the user declined")
	if err == nil && d == approval.AllowAlways && rememberable {
		r.Remember(req.Kind, req.Subject)
	}
	return err
}

// KindLSPCommand is the approval kind of a language server command a
// code action runs.
const KindLSPCommand = "lsp-command"

// Asker returns what capabilities.Environment.Ask does: it asks through
// b, in the calling tool's block, every time (no ALWAYS), and refuses
// without asking where nothing may be asked.
func Asker(b *approval.Broker, kind string) func(ctx context.Context, subject, reason string) error {
	return func(ctx context.Context, subject, reason string) error {
		if capabilities.NoQuestions(ctx) {
			return &capabilities.DeniedError{What: subject, Reason: reason + "; only a tool call can ask for that"}
		}
		call := capabilities.CallFrom(ctx)
		_, err := askUser(ctx, b, approval.Request{
			ThreadID: call.ThreadID, ToolUseID: call.RequestID, Kind: kind, Subject: subject, Reason: reason, NoAlways: true,
		}, "the user declined")
		return err
	}
}
