package rewind

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/magenta-nvim/magenta/pkg/chat"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// readOnlyTools cannot change the workspace's files: no checkpoint is
// taken around them. Every other tool — the built-in edits and commands,
// language-server edits, MCP tools, anything new — is checkpointed, so
// a tool added later is covered until it is listed here.
var readOnlyTools = map[string]bool{
	"get_file": true, "grep": true, "hover": true, "find_references": true, "diagnostics": true,
	"definition": true, "document_symbols": true, "workspace_symbols": true, "code_actions": true,
	"web_fetch": true, "web_search": true, "thread_title": true, "todo_write": true, "exit_plan_mode": true, "skill": true,
	// A sub-agent's own calls are intercepted as its thread's; waiting
	// for them or yielding changes nothing.
	"spawn_subagents": true, "wait_for_subagents": true, "yield_to_parent": true,
}

// MessageLabel is the label of the checkpoint taken when the user's
// message n (from 1) of a thread was sent.
func MessageLabel(n int) string { return fmt.Sprintf("message %d", n) }

// Observer takes the checkpoint of each message the user sends, queued
// in order without waiting (the thread must not block).
func (c *Checkpointer) Observer() chat.Observer {
	return chat.ObserverFunc(func(t *chat.Thread, ev chat.ThreadEvent) {
		m, ok := ev.(chat.MessageAppended)
		if !ok || len(m.Typed) == 0 || !c.covers(t.Env()) {
			return
		}
		n := t.UserMessageCount()
		// The snapshot outlives the thread's call: a thread closed
		// right after sending still gets its checkpoint. The observer
		// must not block: with the queue full (many sub-agents' calls
		// waiting), the message's checkpoint is queued from a goroutine.
		group, label := t.ID, MessageLabel(n)
		if !c.tryAsk(group, label) {
			go func() {
				if _, err := c.ask(c.ctx, group, label); err != nil {
					slog.Debug("no checkpoint of a message", "thread", group, "message", n, "err", err)
				}
			}()
		}
	})
}

// Interceptor takes a checkpoint before and after each tool call that
// may change files. A checkpoint that fails does not stop the call: the
// result notes that restoring may be partial.
func (c *Checkpointer) Interceptor() tools.Interceptor {
	return tools.InterceptorFunc(func(ctx context.Context, name string, call tools.Call, next tools.Next) tools.Result {
		if readOnlyTools[name] || !c.covers(call.Env) || c.Disabled() != "" {
			return next(ctx)
		}
		var notes []string
		if cp, err := c.snapshot(ctx, call.ThreadID, "before "+name+" "+call.ID); err != nil {
			if ctx.Err() != nil {
				return next(ctx) // aborted: the call ends at once itself
			}
			notes = append(notes, "no checkpoint before this call ("+err.Error()+"): :Magenta rewind may not undo it")
		} else if cp.Incomplete != "" {
			notes = append(notes, "checkpoint incomplete ("+cp.Incomplete+"): :Magenta rewind may restore it partly")
		}
		res := next(ctx)
		// After the call, even an aborted one: what it changed is known
		// to be the agent's. Not bound to ctx, which the abort ended.
		if _, err := c.snapshot(context.WithoutCancel(ctx), call.ThreadID, "after "+name+" "+call.ID); err != nil && c.Disabled() == "" {
			slog.Warn("no checkpoint after a tool call", "tool", name, "err", err)
		}
		res.Notes = append(res.Notes, notes...)
		return res
	})
}
