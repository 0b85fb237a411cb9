package hooks

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/localshell"
	"github.com/magenta-nvim/magenta/pkg/sandbox"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// BenchmarkPreToolUseHook is a hook's overhead per tool call: the same
// trivial tool called through the interceptor with no hook, with a
// `true` PreToolUse hook run as the user (bash, a process group, the
// JSON input on stdin), and with the same hook confined by bubblewrap
// as a workspace's hooks are.
func BenchmarkPreToolUseHook(b *testing.B) {
	noop := tools.MustTyped("noop", "does nothing", nil, func(context.Context, tools.Call, struct{}) tools.Result {
		return tools.Result{Text: "ok"}
	})
	reg, err := tools.NewRegistry(noop)
	if err != nil {
		b.Fatal(err)
	}
	ws := b.TempDir()
	env, err := capabilities.NewLocal(ws)
	if err != nil {
		b.Fatal(err)
	}
	call := tools.Call{ID: "c1", ThreadID: "t1", Input: json.RawMessage(`{}`), Env: env}
	offered := tools.Offered{"noop": true}
	hook := Hook{Event: PreToolUse, Command: "true", Timeout: DefaultTimeout, Source: SourceSetup, match: matcher{all: true}}
	run := func(b *testing.B, e *Engine) {
		for b.Loop() {
			if res := reg.RunIntercepted(context.Background(), "noop", call, offered, []tools.Interceptor{e}); res.IsError || len(res.Notes) > 0 {
				b.Fatalf("%+v", res)
			}
		}
	}
	b.Run("none", func(b *testing.B) {
		run(b, New(Options{Place: func(*capabilities.Environment, bool) (Place, error) { return BashPlace(ws, nil, ""), nil }}))
	})
	b.Run("true", func(b *testing.B) {
		run(b, New(Options{Setup: []Hook{hook}, Place: func(*capabilities.Environment, bool) (Place, error) { return BashPlace(ws, nil, ""), nil }}))
	})
	b.Run("true-confined", func(b *testing.B) {
		st := sandbox.Detect(context.Background(), "")
		if !st.Available {
			b.Skip(st.Reason)
		}
		home := b.TempDir()
		c := localshell.BwrapConfiner{Status: func() (sandbox.Status, error) { return st, nil }, Policy: sandbox.Policy{Workspace: ws, Home: home}}
		run(b, New(Options{Setup: []Hook{hook}, Place: func(*capabilities.Environment, bool) (Place, error) {
			return ConfinedPlace(ws, os.Environ(), c, ""), nil
		}}))
	})
}
