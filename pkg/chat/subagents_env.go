package chat

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"sync"

	"github.com/magenta-nvim/magenta/pkg/approval"
	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/chat/view"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/threadstore"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// KindEnvironment is the approval kind of a sub-agent the model sends to
// an environment the user did not name in setup()'s environments.
const KindEnvironment = "environment"

// place is where the model asked a sub-agent to work, when it named an
// environment (spawn_subagents' environment field).
type place struct {
	// label is how the parent's line and the messages name it: the name
	// of one of setup()'s environments, or the free-form value.
	label string
	cfg   config.Environment
	// ask is set for a free-form value: the user is asked first.
	ask bool
}

// placed is a sub-agent's environment once it is made, or why it is not.
type placed struct {
	label string // "" in the parent's environment
	env   *capabilities.Environment
	// prompt is the system prompt of a thread working in env; the
	// sub-agent adds its own to it.
	prompt string
	// owned is set when env was made for this sub-agent: it is closed
	// when the sub-agent's thread ends (or when the spawn fails).
	owned *ownedEnv
	// notStarted says why the sub-agent does not start (declined, or the
	// environment could not be made); "" when it does.
	notStarted string
}

// parseFreeForm reads "docker:<container>[:<dir>]" or
// "ssh:<host>[:<dir>]". ok is false when v is neither form (then it is a
// name); err says what is wrong with one that is.
func parseFreeForm(v string) (cfg config.Environment, ok bool, err error) {
	var kind, rest string
	switch {
	case strings.HasPrefix(v, tools.SpawnEnvDocker):
		kind, rest = config.EnvDocker, strings.TrimPrefix(v, tools.SpawnEnvDocker)
	case strings.HasPrefix(v, tools.SpawnEnvSSH):
		kind, rest = config.EnvSSH, strings.TrimPrefix(v, tools.SpawnEnvSSH)
	default:
		return config.Environment{}, false, nil
	}
	target, dir, hasDir := strings.Cut(rest, ":")
	if !plainTarget(target, kind == config.EnvSSH) {
		what := "a container name"
		if kind == config.EnvSSH {
			what = "a host: an alias of ~/.ssh/config or [user@]host"
		}
		return config.Environment{}, true, fmt.Errorf("%q: %q is not %s", v, target, what)
	}
	if hasDir && !path.IsAbs(dir) {
		return config.Environment{}, true, fmt.Errorf("%q: the directory %q must be absolute", v, dir)
	}
	cfg = config.Environment{Type: kind, Cwd: dir}
	if hasDir {
		cfg.Cwd = path.Clean(dir)
	}
	if kind == config.EnvSSH {
		cfg.Host = target
	} else {
		cfg.Container = target
	}
	if err := config.CheckEnvironment(cfg, "environment"); err != nil {
		return config.Environment{}, true, fmt.Errorf("%q: %v", v, err)
	}
	return cfg, true, nil
}

// plainTarget reports whether s may name a container, or (host) an ssh
// destination: letters, digits, '.', '_', '-' (and '@' in a host), not
// starting with '-', so nothing the model writes becomes an option of
// docker or ssh.
func plainTarget(s string, host bool) bool {
	if s == "" || s[0] == '-' || s[0] == '.' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c == '-' || c == '.' || host && c == '@') {
			return false
		}
	}
	return true
}

// resolvePlaces reads each request's environment on the app goroutine:
// nil for the parent's, a place for one of setup()'s environments or a
// free-form value. An unknown name or a malformed value is an error that
// lists what may be written.
func (a *App) resolvePlaces(reqs []spawnRequest) ([]*place, error) {
	out := make([]*place, len(reqs))
	for i, r := range reqs {
		v := strings.TrimSpace(r.Environment)
		if v == "" {
			continue
		}
		cfg, free, err := parseFreeForm(v)
		if err != nil {
			return nil, fmt.Errorf("agents[%d].environment: %v", i, err)
		}
		p := &place{label: v, cfg: cfg, ask: free}
		if !free {
			named, ok := a.opts.NamedEnvironment(v)
			if !ok {
				return nil, fmt.Errorf("agents[%d].environment: no environment %q; %s", i, v, a.environmentChoices())
			}
			p.cfg = named
		}
		if a.deps.OpenEnv == nil && p.cfg.Type != "" && p.cfg.Type != config.EnvLocal {
			return nil, fmt.Errorf("agents[%d].environment: %s: this front end cannot make other environments; leave environment out", i, v)
		}
		out[i] = p
	}
	return out, nil
}

// environmentChoices says what an environment field may hold.
func (a *App) environmentChoices() string {
	free := strings.ReplaceAll(tools.SpawnEnvForms, "`", "")
	names := a.opts.EnvironmentNames()
	if len(names) == 0 {
		return "the user configured no environments (setup's environments); leave it out to work where you work, or write " + free + ", which the user is asked to approve"
	}
	return "the user's environments are " + strings.Join(names, ", ") + "; otherwise write " + free + ", which the user is asked to approve"
}

// spawnEnvironments lists setup()'s environments for spawn_subagents'
// description.
func spawnEnvironments(opts config.Options) []tools.SpawnEnvironment {
	var out []tools.SpawnEnvironment
	for _, name := range opts.EnvironmentNames() {
		e, _ := opts.NamedEnvironment(name)
		out = append(out, tools.SpawnEnvironment{Name: name, Where: describeEnvironment(e)})
	}
	return out
}

// describeEnvironment says what an environment is, for the model.
func describeEnvironment(e config.Environment) string {
	var s string
	switch e.Type {
	case config.EnvDocker:
		s = "the Docker container " + e.Container
		if e.Context != "" {
			s += " (Docker context " + e.Context + ")"
		}
	case config.EnvSSH:
		s = "the machine " + e.Host + " over SSH"
	default:
		return "this machine, the editor's workspace"
	}
	if e.Cwd != "" {
		s += ", in " + e.Cwd
	}
	return s
}

// storeEnv is cfg as OpenEnv takes it (the saved form of a thread's
// environment).
func storeEnv(cfg config.Environment) threadstore.Env {
	return threadstore.Env{Type: cfg.Type, Container: cfg.Container, Context: cfg.Context, Host: cfg.Host, Cwd: cfg.Cwd}
}

// preparePlaces makes the environments of the sub-agents that work
// elsewhere, on the spawn call's goroutine: a free-form one is asked
// first (in the spawn call, one question at a time), then every
// environment is made at once. A sub-agent the user declines, or whose
// environment cannot be made, gets notStarted; the others go on. It
// fails only when ctx ends (the spawn was stopped), after closing what
// it made.
func (t *Thread) preparePlaces(ctx context.Context, places []*place) ([]placed, error) {
	out := make([]placed, len(places))
	for i, p := range places {
		if p == nil {
			continue
		}
		out[i].label = p.label
		if !p.ask {
			continue
		}
		if err := t.askPlace(ctx, p); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			out[i].notStarted = fmt.Sprintf("agents[%d] was not started: %v", i, err)
		}
	}
	app := t.agents.app
	var wg sync.WaitGroup
	for i, p := range places {
		if p == nil || out[i].notStarted != "" {
			continue
		}
		if p.cfg.Type == "" || p.cfg.Type == config.EnvLocal {
			if sameWorkspace(t.deps.Env, app.deps.Env) {
				out[i] = placed{} // the parent's own
			} else {
				out[i].env, out[i].prompt = app.deps.Env, app.deps.SystemPrompt
			}
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			env, prompt, err := app.openEnv(ctx, storeEnv(p.cfg))
			if err != nil {
				out[i].notStarted = fmt.Sprintf("agents[%d] was not started in %s: %v", i, p.label, err)
				return
			}
			out[i].env, out[i].prompt, out[i].owned = env, prompt, &ownedEnv{env: env}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		for _, p := range out {
			p.owned.close()
		}
		return nil, err
	}
	return out, nil
}

// sameWorkspace reports whether a and b are the same place: a thread's
// environment is a copy of the one it was made with.
func sameWorkspace(a, b *capabilities.Environment) bool {
	return a != nil && b != nil && a.Name == b.Name && a.Cwd == b.Cwd
}

// askPlace asks the user whether a sub-agent may work in p, in the spawn
// call; nil means yes.
func (t *Thread) askPlace(ctx context.Context, p *place) error {
	if t.deps.Broker == nil {
		return fmt.Errorf("%s is not one of the user's environments, and this thread cannot ask the user", p.label)
	}
	where := "on the machine " + p.cfg.Host + " (over SSH): its commands and file changes happen there"
	if p.cfg.Type == config.EnvDocker {
		where = "in the Docker container " + p.cfg.Container + ": its commands run inside it without asking"
	}
	call := capabilities.CallFrom(ctx)
	d, err := t.deps.Broker.Ask(ctx, approval.Request{
		ThreadID: t.ID, ToolUseID: call.RequestID, Kind: KindEnvironment, NoAlways: true,
		Subject: fmt.Sprintf("Start sub-agent in %s?", p.label),
		Reason:  "the agent wants a sub-agent to work " + where + "; it is not one of your environments (setup's environments)",
	})
	if err != nil {
		return err
	}
	if d != approval.Allow && d != approval.AllowAlways {
		return fmt.Errorf("the user declined to start a sub-agent in %s", p.label)
	}
	return nil
}

// openEnv makes an environment through the editor's OpenEnv and waits
// for it, or for ctx to end: an environment made after that is closed.
func (a *App) openEnv(ctx context.Context, cfg threadstore.Env) (*capabilities.Environment, string, error) {
	if a.deps.OpenEnv == nil {
		return nil, "", errors.New("this editor cannot make other environments")
	}
	type made struct {
		env    *capabilities.Environment
		prompt string
		err    error
	}
	var mu sync.Mutex
	abandoned := false
	ch := make(chan made, 1)
	a.deps.OpenEnv(cfg, func(env *capabilities.Environment, prompt string, err error) {
		mu.Lock()
		defer mu.Unlock()
		if abandoned {
			if env != nil {
				closeEnv(env)
			}
			return
		}
		ch <- made{env, prompt, err}
	})
	select {
	case m := <-ch:
		if m.err == nil && m.env == nil {
			m.err = errors.New("no environment was made")
		}
		return m.env, m.prompt, m.err
	case <-ctx.Done():
		mu.Lock()
		abandoned = true
		mu.Unlock()
		select {
		case m := <-ch:
			if m.env != nil {
				closeEnv(m.env)
			}
		default:
		}
		return nil, "", ctx.Err()
	}
}

// ownedEnv is an environment made for one sub-agent. Safe for
// concurrent use.
type ownedEnv struct {
	env  *capabilities.Environment
	once sync.Once
}

// close releases the environment; later calls do nothing (nil: nothing
// to release).
func (o *ownedEnv) close() {
	if o != nil {
		o.once.Do(func() { closeEnv(o.env) })
	}
}

// closeEnv releases an environment made for a sub-agent, once nothing
// uses it (the spawn was stopped, or the sub-agent's thread ended): its
// Close, when it has one (an ssh environment's connection).
func closeEnv(env *capabilities.Environment) {
	if env != nil && env.Close != nil {
		go func() { _ = env.Close() }() // a round trip or two: off the caller
	}
}

// subagentEnv is a sub-agent's environment at depth: env with Threads set
// by the depth limit, and a banner saying where it works when env brings
// none.
func subagentEnv(env *capabilities.Environment, label string, depth, maxDepth int) *capabilities.Environment {
	out := envAtDepth(env, depth, maxDepth)
	if out != nil && out.Banner == nil && label != "" {
		banner := out.Name
		if !strings.HasPrefix(label, out.Name) {
			banner = label + ": " + out.Name // one of setup()'s, by name
		}
		if out.Cwd != "" {
			banner += " · " + out.Cwd
		}
		out.Banner = func() string { return banner }
	}
	return out
}

// notStartedEnv is the environment of a sub-agent that does not start:
// nothing to use, and a header that says where it was to work and why
// it did not. Its name is no environment's ("docker:…" would be saved
// as that container, and a reopened thread would go there unasked).
func notStartedEnv(label, why string) *capabilities.Environment {
	banner := label + " · not started: " + why
	return &capabilities.Environment{Name: "not started in " + label, Banner: func() string { return banner }}
}

// msgNotStarted ends a sub-agent that does not start, with why.
type msgNotStarted struct{ why string }

func (m msgNotStarted) apply(t *Thread) {
	if t.agents.finished {
		return
	}
	t.notice(view.NoticeError, m.why)
	t.finishSubagent(tools.SubagentError, m.why)
}
