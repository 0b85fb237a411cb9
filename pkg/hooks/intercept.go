package hooks

import (
	"context"
	"fmt"
	"strings"

	"github.com/magenta-nvim/magenta/pkg/approval"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

var _ tools.Interceptor = (*Engine)(nil)

// Intercept runs the PreToolUse hooks matching the tool before the call
// and the PostToolUse hooks after it (tools.Interceptor). A PreToolUse
// block (exit 2, "decision": "block", permissionDecision "deny") is the
// call's result — the model reads the reason, nothing runs — and a hook
// that answers "ask" asks the user in the call. A PostToolUse hook's
// exit-2 stderr, block reason or additionalContext is added to the
// result for the model. What the hooks said and how they failed is in
// the result's Notes, drawn under the call.
func (e *Engine) Intercept(ctx context.Context, name string, call tools.Call, next tools.Next) tools.Result {
	var shown []string
	if pre := e.matching(PreToolUse, name, call.Env); len(pre) > 0 {
		in := baseInput(PreToolUse, call.ThreadID, call.Env)
		in.ToolName, in.ToolInput, in.ToolUseID = name, call.Input, call.ID
		vs := e.runAll(ctx, call.Env, pre, in)
		shown = notes(vs)
		if res, stop := e.decide(ctx, name, call, vs, shown); stop {
			return res
		}
	}
	res := next(ctx)
	post := e.matching(PostToolUse, name, call.Env)
	if len(post) > 0 && !res.IsError && ctx.Err() == nil {
		in := baseInput(PostToolUse, call.ThreadID, call.Env)
		in.ToolName, in.ToolInput, in.ToolUseID = name, call.Input, call.ID
		text := res.Text
		if len(text) > maxResponseText {
			text = text[:maxResponseText]
		}
		in.ToolResponse = &toolResponse{Text: text, IsError: res.IsError}
		vs := e.runAll(ctx, call.Env, post, in)
		shown = append(shown, notes(vs)...)
		for _, v := range vs {
			if v.block || v.stop {
				why := firstOf(v.reason, v.stopReason)
				res.Text += fmt.Sprintf("\n\nPostToolUse hook feedback (%s):\n%s", short(v.hook.Command, 60), why)
				shown = append(shown, label(v.hook)+": told the model: "+short(why, 200))
			}
			if v.context != "" {
				res.Text += fmt.Sprintf("\n\nPostToolUse hook additional context (%s):\n%s", short(v.hook.Command, 60), v.context)
			}
		}
	}
	if len(shown) > 0 {
		res.Notes = append(shown, res.Notes...)
	}
	return res
}

// decide turns the PreToolUse verdicts into a block (the call's result,
// stop true), a question to the user, or nothing.
func (e *Engine) decide(ctx context.Context, name string, call tools.Call, vs []verdict, shown []string) (tools.Result, bool) {
	var blocks, asks []string
	for _, v := range vs {
		why := ""
		switch {
		case v.block:
			why = v.reason
		case v.stop:
			why = firstOf(v.stopReason, "(it asked to stop, giving no reason)")
		case v.unverified:
			why = "this workspace hook changed since the user trusted it, so it did not run and the call is held back until the user trusts the workspace's hooks again (the question is in the sidebar)"
		case v.ask:
			asks = append(asks, fmt.Sprintf("%s: %s", short(v.hook.Command, 60), v.reason))
			continue
		default:
			continue
		}
		blocks = append(blocks, fmt.Sprintf("%s: %s", short(v.hook.Command, 60), why))
		shown = append(shown, label(v.hook)+": blocked the call: "+short(why, 300))
	}
	if len(blocks) > 0 {
		return blocked("A PreToolUse hook blocked this call; the tool did not run.", blocks, shown), true
	}
	if len(asks) == 0 {
		return tools.Result{}, false
	}
	if e.opts.Broker == nil {
		return blocked("A PreToolUse hook asked for the user's approval of this call, and there is no one to ask; the tool did not run.", asks, shown), true
	}
	d, err := e.opts.Broker.Ask(ctx, approval.Request{
		ThreadID: call.ThreadID, ToolUseID: call.ID, Kind: "hook", NoAlways: true,
		Subject: name + " " + short(string(call.Input), 300),
		Reason:  "a PreToolUse hook asks you to approve this call: " + short(strings.Join(asks, "; "), 400),
	})
	if err != nil {
		return tools.Errorf("The call was aborted while a PreToolUse hook's question waited for the user."), true
	}
	if d == approval.Deny {
		return blocked("A PreToolUse hook asked for the user's approval of this call and the user said no; the tool did not run.", asks,
			append(shown, "PreToolUse: you said no to the call a hook asked about")), true
	}
	return tools.Result{}, false
}

// blocked is the result of a call a hook stopped: the reasons for the
// model, the notes for the user.
func blocked(head string, reasons, shown []string) tools.Result {
	text := head + "\n" + strings.Join(reasons, "\n")
	return tools.Result{Text: text, IsError: true, Summary: "blocked by a PreToolUse hook", Notes: shown}
}
