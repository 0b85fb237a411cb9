package hooks

import (
	"context"
	"fmt"
	"strings"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/chat"
)

// MaxStopContinuations bounds how many times in a row Stop hooks may
// send the agent back to work: a hook that ignores stop_hook_active and
// always blocks would otherwise loop for ever.
const MaxStopContinuations = 5

var _ chat.PromptCheck = (*Engine)(nil)

// Wants reports whether a UserPromptSubmit or SessionStart hook would
// run for a thread in env (chat.PromptCheck): without one, messages go
// as they would without hooks.
func (e *Engine) Wants(env *capabilities.Environment) bool {
	return len(e.matching(UserPromptSubmit, "", env)) > 0 ||
		len(e.matching(SessionStart, "startup", env)) > 0 || len(e.matching(SessionStart, "resume", env)) > 0
}

// Check is the chat.PromptCheck: the SessionStart hooks at a thread's
// first checked message (source "startup", or "resume" for a reopened
// thread), whose output goes to the model with it, then the
// UserPromptSubmit hooks, which may refuse the message (exit 2, or
// "decision": "block": the reason is shown to the user, never to the
// model) or add context (plain stdout, additionalContext).
func (e *Engine) Check(ctx context.Context, p chat.Prompt) chat.PromptVerdict {
	e.stops.Delete(p.ThreadID) // the user speaks: not a Stop hook's loop
	var out chat.PromptVerdict
	note := func(vs []verdict) {
		for _, v := range vs {
			for _, n := range notes([]verdict{v}) {
				out.Notes = append(out.Notes, chat.PromptNote{Warn: v.failed, Text: n})
			}
		}
	}
	if p.First {
		source := "startup"
		if p.Resumed {
			source = "resume"
		}
		if hs := e.matching(SessionStart, source, p.Env); len(hs) > 0 {
			in := baseInput(SessionStart, p.ThreadID, p.Env)
			in.Source, in.Model = source, p.Model
			vs := e.runAll(ctx, p.Env, hs, in)
			note(vs)
			for _, v := range vs {
				if v.block && v.reason != "" { // exit 2: shown to the user only
					out.Notes = append(out.Notes, chat.PromptNote{Warn: true, Text: label(v.hook) + ": " + short(v.reason, 400)})
				}
				out.Context = appendContext(out.Context, &out.Notes, v, "SessionStart")
			}
		}
	}
	hs := e.matching(UserPromptSubmit, "", p.Env)
	if len(hs) == 0 {
		return out
	}
	in := baseInput(UserPromptSubmit, p.ThreadID, p.Env)
	in.Prompt = p.Text
	vs := e.runAll(ctx, p.Env, hs, in)
	note(vs)
	var blocks []string
	for _, v := range vs {
		switch {
		case v.block:
			blocks = append(blocks, fmt.Sprintf("UserPromptSubmit hook %s: %s", short(v.hook.Command, 60), v.reason))
		case v.stop:
			blocks = append(blocks, fmt.Sprintf("UserPromptSubmit hook %s: %s", short(v.hook.Command, 60), firstOf(v.stopReason, "it asked to stop")))
		default:
			out.Context = appendContext(out.Context, &out.Notes, v, "UserPromptSubmit")
		}
	}
	if len(blocks) > 0 {
		out.Blocked, out.Context = strings.Join(blocks, "\n"), nil
	}
	return out
}

// appendContext adds v's context for the model, and says so.
func appendContext(ctx []string, notes *[]chat.PromptNote, v verdict, ev string) []string {
	if v.context == "" {
		return ctx
	}
	*notes = append(*notes, chat.PromptNote{Text: fmt.Sprintf("%s: added %s of context for the model", label(v.hook), size(int64(len(v.context))))})
	return append(ctx, fmt.Sprintf("%s hook additional context (%s):\n%s", ev, short(v.hook.Command, 60), v.context))
}

// Observer is the chat.Observer that has the workspace's settings read
// again (in the background) whenever the user sends a message, and runs
// the Stop hooks when a user's thread (not a sub-agent) ends a turn
// cleanly with nothing waiting. A
// hook that blocks (exit 2, "decision": "block") sends its reason to the
// model as the next message, as Claude Code does; the next Stop input
// then has stop_hook_active true, and after MaxStopContinuations in a
// row the agent stops whatever the hooks say. The hooks run on a
// goroutine: the thread goes on meanwhile, and feedback that arrives
// after the user sent something is dropped (chat.Thread.ContinueAfter).
func (e *Engine) Observer() chat.Observer {
	return chat.ObserverFunc(func(t *chat.Thread, ev chat.ThreadEvent) {
		if m, ok := ev.(chat.MessageAppended); ok && len(m.Typed) > 0 && e.opts.Gate != nil && local(t.Env()) {
			e.opts.Gate.Check()
			return
		}
		end, ok := ev.(chat.TurnEnded)
		if !ok || t.Subagent() {
			return
		}
		if !end.Clean || !t.Idle() {
			if !end.Clean {
				e.stops.Delete(t.ID)
			}
			return
		}
		env := t.Env()
		hs := e.matching(Stop, "", env)
		if len(hs) == 0 {
			return
		}
		n := 0
		if v, ok := e.stops.Load(t.ID); ok {
			n = v.(int)
		}
		active := n > 0
		in := baseInput(Stop, t.ID, env)
		in.StopHookActive = &active
		turn := t.Turn()
		e.wg.Add(1)
		go func() {
			defer e.wg.Done()
			vs := e.runAll(e.ctx, env, hs, in)
			for _, v := range vs {
				for _, line := range notes([]verdict{v}) {
					t.Note(v.failed, line)
				}
			}
			e.afterStop(t, vs, n, turn)
		}()
	})
}

// afterStop sends the agent back to work when a Stop hook blocked, n
// being the continuations so far.
func (e *Engine) afterStop(t *chat.Thread, vs []verdict, n, turn int) {
	var reasons []string
	for _, v := range vs {
		if v.stop { // "continue": false wins: the agent stops
			e.stops.Delete(t.ID)
			return
		}
		if v.block {
			reasons = append(reasons, v.reason)
		}
	}
	if len(reasons) == 0 || e.ctx.Err() != nil {
		e.stops.Delete(t.ID)
		return
	}
	if n >= MaxStopContinuations {
		e.stops.Delete(t.ID)
		t.Note(true, fmt.Sprintf("Stop hooks asked the agent to go on %d times in a row; magenta stopped it (the hook should check stop_hook_active)", n))
		return
	}
	e.stops.Store(t.ID, n+1)
	t.ContinueAfter(turn, "Stop hook feedback:\n"+strings.Join(reasons, "\n"))
}
