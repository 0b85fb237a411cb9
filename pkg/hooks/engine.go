package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/magenta-nvim/magenta/pkg/approval"
	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// Options configure an Engine.
type Options struct {
	// Setup are setup()'s hooks, trusted as the user's own
	// configuration; SetupIgnored what of the option magenta does not
	// run.
	Setup        []Hook
	SetupIgnored []string
	// Gate holds the workspace's hooks, run only while the user trusts
	// them; nil: the workspace's files are not read.
	Gate *Gate
	// Place says where a thread's hooks run; workspace: the hook comes
	// from the workspace's files (it may be confined where setup()'s is
	// not). See doc.go for the policy.
	Place func(env *capabilities.Environment, workspace bool) (Place, error)
	// Broker asks the user when a PreToolUse hook answers "ask"; nil:
	// such a call is blocked (there is no one to ask).
	Broker *approval.Broker
}

// Engine runs the hooks of every thread: a tools.Interceptor
// (PreToolUse, PostToolUse), a chat.PromptCheck (UserPromptSubmit,
// SessionStart) and a chat.Observer (Stop). Safe for concurrent use.
type Engine struct {
	opts  Options
	setup atomic.Pointer[setupHooks]

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	// stops counts, per thread, the Stop hooks' continuations in a row
	// (stop_hook_active, and the bound on loops).
	stops sync.Map // thread id → int
}

type setupHooks struct {
	hooks   []Hook
	ignored []string
}

// New returns an engine; Close stops the hooks still running.
func New(opts Options) *Engine {
	ctx, cancel := context.WithCancel(context.Background())
	e := &Engine{opts: opts, ctx: ctx, cancel: cancel}
	e.setup.Store(&setupHooks{hooks: opts.Setup, ignored: opts.SetupIgnored})
	return e
}

// SetSetup replaces setup()'s hooks (setup() was called again).
func (e *Engine) SetSetup(hooks []Hook, ignored []string) {
	e.setup.Store(&setupHooks{hooks: hooks, ignored: ignored})
}

// Gate is the workspace's gate (nil when its files are not read).
func (e *Engine) Gate() *Gate { return e.opts.Gate }

// Close stops the Stop hooks still running and waits for them, and
// withdraws the gate's question.
func (e *Engine) Close() {
	e.cancel()
	e.wg.Wait()
	if e.opts.Gate != nil {
		e.opts.Gate.Close()
	}
}

// local reports whether env is this machine's workspace: only there do
// the workspace's own hooks run (a Docker thread's files are the
// container's, not those the settings were read from).
func local(env *capabilities.Environment) bool { return env != nil && env.Name == "local" }

// matching lists the hooks of ev that run for subject in env: setup()'s,
// then the workspace's while trusted; a command given twice runs once,
// as in Claude Code.
func (e *Engine) matching(ev Event, subject string, env *capabilities.Environment) []Hook {
	var out []Hook
	add := func(hs []Hook) {
		for _, h := range hs {
			if h.Event == ev && h.Matches(subject) && !slices.ContainsFunc(out, func(o Hook) bool { return o.Command == h.Command }) {
				out = append(out, h)
			}
		}
	}
	add(e.setup.Load().hooks)
	if e.opts.Gate != nil && local(env) {
		add(e.opts.Gate.Hooks())
	}
	return out
}

// runAll runs hooks in parallel with in on their stdin and reads each
// one's verdict; the verdicts are in the hooks' order.
func (e *Engine) runAll(ctx context.Context, env *capabilities.Environment, hooks []Hook, in input) []verdict {
	data, err := json.Marshal(in)
	if err != nil { // not expected: the input is plain data
		data = []byte("{}")
	}
	out := make([]verdict, len(hooks))
	var wg sync.WaitGroup
	for i, h := range hooks {
		place, unverified, err := e.place(env, h)
		if err != nil {
			out[i] = verdict{hook: h, failed: true, unverified: unverified, notes: []string{fmt.Sprintf("did not run: %v", err)}}
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if p := recover(); p != nil {
					out[i] = verdict{hook: h, failed: true, notes: []string{fmt.Sprintf("failed inside magenta (a bug): %v", p)}}
				}
			}()
			out[i] = read(h.Event, execute(ctx, place, h, data))
		}()
	}
	wg.Wait()
	return out
}

// place is where h runs for a thread in env; a workspace hook's scripts
// are checked against the trust first (unverified: they changed, or the
// trust went, since the hook was picked).
func (e *Engine) place(env *capabilities.Environment, h Hook) (p Place, unverified bool, err error) {
	workspace := h.Source != SourceSetup
	if workspace {
		if e.opts.Gate == nil {
			return Place{}, true, fmt.Errorf("the workspace's hooks are not read")
		}
		if err := e.opts.Gate.Verify(h); err != nil {
			return Place{}, true, err
		}
	}
	if e.opts.Place == nil || env == nil {
		return Place{}, false, fmt.Errorf("this thread has no place to run commands")
	}
	p, err = e.opts.Place(env, workspace)
	return p, false, err
}

// baseInput is the part of every event's input that names the thread.
func baseInput(ev Event, threadID string, env *capabilities.Environment) input {
	in := input{SessionID: threadID, HookEventName: ev, PermissionMode: "default"}
	if env != nil {
		in.Cwd = env.Cwd
	}
	return in
}

// label names a hook in the notes the user sees.
func label(h Hook) string {
	from := ""
	if h.Source != SourceSetup {
		from = " from " + h.Source
	}
	return fmt.Sprintf("%s hook %s%s", h.Event, short(h.Command, 60), from)
}

// notes are a verdict's lines for the user, each naming the hook.
func notes(vs []verdict) []string {
	var out []string
	for _, v := range vs {
		for _, n := range v.notes {
			out = append(out, label(v.hook)+": "+short(n, 400))
		}
	}
	return out
}
