package chat

import (
	"errors"
	"fmt"
	"strings"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/chat/view"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/prompts"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// subagentPrompt is added to every sub-agent's system prompt.
const subagentPrompt = `
You are a sub-agent: another agent gave you the task in the first message and waits for your answer. Work on it on your own; nobody reads your messages but the user, who may not be watching. When you are done, call yield_to_parent once with your complete answer: it is all the other agent sees.
`

// explorePrompt is the explore type's addition.
const explorePrompt = `
You answer one question about the code. Search and read; do not change anything. Back every finding with its location as path:line, and keep the answer short: the findings and the locations, no narration.
`

// exploreTools are the read-only tools of the explore type (bash_command
// still goes through the usual command checker and approvals).
var exploreTools = []string{"get_file", "grep", "hover", "find_references", "diagnostics", "bash_command"}

// agentType is a resolved sub-agent type.
type agentType struct {
	name, description, prompt string
	profile                   string   // "" for the parent's
	tools                     []string // nil for the parent's tools
}

// appAgents is the sub-agent configuration of the app: the types and the
// registry of the user's threads. Owned by the app goroutine.
type appAgents struct {
	types    map[string]agentType
	maxDepth int
	limit    int
	// topTools is the registry of the user's threads: the built-in tools
	// plus spawn_subagents (describing these types and the files') and
	// wait_for_subagents.
	topTools *tools.Registry
	// files are the types agent files define (subagents_files.go).
	files fileAgents
}

// newAppAgents builds the types from the options; problems (a tool name
// no registry has) are returned for the user, and the type keeps the
// tools that exist. The types agent files define (lib) are read on first
// need, not here.
func newAppAgents(opts config.Options, base *tools.Registry, lib *prompts.Library) (appAgents, []string) {
	s := opts.Subagents
	fast := "the same tools as you, on a faster, cheaper model"
	if s.FastProfile != "" {
		fast += fmt.Sprintf(" (profile %s)", s.FastProfile)
	} else {
		fast += " (none is configured, so it runs on your model)"
	}
	types := map[string]agentType{
		tools.DefaultAgentType: {name: tools.DefaultAgentType, description: "a general agent with your tools, for any self-contained task"},
		"explore":              {name: "explore", description: "read-only: searches and reads the code to answer one question, with file locations", prompt: explorePrompt, tools: exploreTools},
		"fast":                 {name: "fast", description: fast + "; for simple, well-specified tasks", profile: s.FastProfile},
	}
	described := []tools.AgentType{
		{Name: tools.DefaultAgentType, Description: types[tools.DefaultAgentType].description},
		{Name: "explore", Description: types["explore"].description},
		{Name: "fast", Description: types["fast"].description},
	}
	var problems []string
	for _, name := range s.AgentNames() {
		a := s.Agents[name]
		typ := agentType{name: name, description: a.Description, profile: a.Profile}
		if a.SystemPrompt != "" {
			typ.prompt = "\n" + a.SystemPrompt + "\n"
		}
		if len(a.Tools) > 0 {
			_, missing := base.With(tools.SpawnSubagents(nil, 1), tools.WaitForSubagents()).Only(a.Tools)
			if len(missing) > 0 {
				problems = append(problems, fmt.Sprintf("subagents.agents.%s.tools: no tool called %s", name, strings.Join(missing, ", ")))
			}
			typ.tools = append([]string(nil), a.Tools...)
		}
		types[name] = typ
		described = append(described, tools.AgentType{Name: name, Description: a.Description})
	}
	files := fileAgents{lib: lib, opts: opts, base: base, taken: map[string]bool{}}
	for name := range types {
		files.taken[name] = true
	}
	spawnConfig := tools.SpawnConfig{Types: described, Environments: spawnEnvironments(opts), MaxConcurrent: s.Concurrency()}
	if lib != nil {
		spawnConfig.More = files.described
	}
	spawn := tools.NewSpawnSubagents(spawnConfig)
	return appAgents{
		types: types, maxDepth: s.MaxDepth, limit: s.Concurrency(), files: files,
		topTools: base.With(spawn, tools.WaitForSubagents()),
	}, problems
}

// registryFor is a sub-agent's registry: the type's tools out of the
// parent's, plus yield_to_parent. Spawning stays only where the depth
// allows it (the environment's Threads decides whether it is offered).
func (typ agentType) registryFor(parent *tools.Registry) *tools.Registry {
	reg := parent
	if typ.tools != nil {
		reg, _ = parent.Only(typ.tools)
	}
	return reg.With(tools.YieldToParent())
}

// threadDeps is what a user's thread in env gets: env with Threads set
// by the depth limit, and the tools that spawn.
func (a *App) threadDeps(env *capabilities.Environment, systemPrompt string) Deps {
	return Deps{
		Tools: a.agents.topTools, Env: envAtDepth(env, 0, a.agents.maxDepth), Display: a.deps.Screen,
		NewProvider: a.deps.NewProvider, SystemPrompt: systemPrompt,
		OnSummary: a.onSummary, Broker: a.deps.Broker, ContextFiles: a.deps.ContextFiles,
		Profile:   a.profiles.lookup,
		Terminals: a.deps.Terminals, TerminalKey: a.opts.TerminalKeyLabel(),
		ApprovalKeys: a.approvalKeys(),
		MCP:          a.deps.MCP,
		ToolServers:  a.deps.ToolServers,
		Store:        a.deps.Store,
		Prompts:      a.deps.Prompts,
		ServerSearch: a.opts.Search.Anthropic,
		Observers:    a.deps.Observers,
		Interceptors: a.deps.Interceptors,
		PromptCheck:  a.deps.PromptCheck,
		agents:       agentDeps{app: a, limit: a.agents.limit, basePrompt: systemPrompt},
	}
}

// envAtDepth is env for a thread at depth: the same capabilities (a
// shallow copy: the same Shell, FileIO and so on, so a child works in the
// same workspace — or the same container — as its parent, under the same
// permission decorators and the session's ALWAYS answers), with Threads
// set while a thread at this depth may still spawn.
func envAtDepth(env *capabilities.Environment, depth, maxDepth int) *capabilities.Environment {
	if env == nil {
		return nil
	}
	out := *env
	out.Threads = depth < maxDepth
	return &out
}

// spawnRequest is a sub-agent to create: the model's request and the
// first message built for it.
type spawnRequest struct {
	tools.SpawnRequest
	task string
	// file is the agent file of the requested type, looked up on the
	// tool's goroutine (nil: none); a built-in or setup() type wins.
	file *prompts.Agent
	// placed is the environment made for it when it works elsewhere
	// (subagents_env.go).
	placed
}

// onApp runs f on the app goroutine and returns its error. It waits for
// the app even when the calling tool is aborted meanwhile, but not once
// the app is closing: Close waits for the threads' tool goroutines, and
// the app would never answer.
func (a *App) onApp(f func() error) error {
	ch := make(chan error, 1)
	closing := errors.New("magenta is shutting down")
	select {
	case a.inbox <- func() { ch <- f() }:
	case <-a.ctx.Done():
		return closing
	}
	select {
	case err := <-ch:
		return err
	case <-a.ctx.Done():
		return closing
	}
}

// spawn creates parent's sub-agents on the app goroutine and returns
// them, queued for their first message (onApp says how it waits).
func (a *App) spawn(parent *Thread, toolUseID string, reqs []spawnRequest) ([]*subagent, error) {
	var subs []*subagent
	err := a.onApp(func() error {
		var err error
		subs, err = a.createSubagents(parent, toolUseID, reqs)
		return err
	})
	return subs, err
}

// checkSpawn checks that parent may spawn reqs (the depth limit, the
// types) and returns their types.
func (a *App) checkSpawn(parent *Thread, reqs []spawnRequest) ([]agentType, error) {
	if depth := parent.agents.depth; depth >= a.agents.maxDepth {
		return nil, fmt.Errorf("sub-agents may not spawn sub-agents here (subagents.maxDepth is %d)", a.agents.maxDepth)
	}
	typs := make([]agentType, len(reqs))
	for i, r := range reqs {
		name := r.AgentType
		if name == "" {
			name = tools.DefaultAgentType
		}
		typ, ok := a.agents.types[name]
		if !ok && r.file != nil {
			typ, ok = a.agents.files.typeOf(*r.file)
		}
		if !ok {
			return nil, fmt.Errorf("agents[%d].agentType: no type %q; the types are %s", i, name, strings.Join(a.typeNames(), ", "))
		}
		typs[i] = typ
	}
	return typs, nil
}

func (a *App) createSubagents(parent *Thread, toolUseID string, reqs []spawnRequest) ([]*subagent, error) {
	typs, err := a.checkSpawn(parent, reqs)
	if err != nil {
		return nil, err
	}
	depth := parent.agents.depth
	profile := a.profileOf(parent.ID)
	subs := make([]*subagent, 0, len(reqs))
	for i, r := range reqs {
		typ := typs[i]
		p := profile
		if typ.profile != "" {
			if named, ok := a.opts.Profile(typ.profile); ok {
				p = named
			}
		}
		rec := &subagent{parent: parent, agentType: typ.name, prompt: r.Prompt, toolUseID: toolUseID, done: make(chan struct{}), envLabel: r.label}
		rec.status.state = subagentQueued
		if r.notStarted == "" {
			rec.ticket = parent.agents.limiter.take()
		}
		d := parent.deps
		d.Tools = typ.registryFor(parent.deps.Tools)
		env, base := parent.deps.Env, parent.agents.basePrompt
		switch {
		case r.notStarted != "":
			env = notStartedEnv(r.label, r.notStarted)
		case r.env != nil:
			env, base = r.env, r.prompt
		}
		d.Env = subagentEnv(env, r.label, depth+1, a.agents.maxDepth)
		d.SystemPrompt = base + subagentPrompt + typ.prompt
		d.agents = agentDeps{app: a, self: rec, depth: depth + 1, limit: a.agents.limit, basePrompt: base}
		t, err := NewThread(a.ctx, p, d)
		if err != nil {
			parent.agents.limiter.giveBack(rec.ticket)
			abortAll(subs)
			return nil, err // the spawn closes the environments made
		}
		rec.thread = t
		a.register(t)
		if own := r.owned; own != nil {
			// The environment made for it lives as long as its thread.
			go func() {
				<-t.done
				own.close()
			}()
		}
		if r.notStarted != "" {
			t.enqueue(msgNotStarted{why: r.notStarted})
		} else {
			t.enqueue(msgLaunch{task: r.task})
		}
		subs = append(subs, rec)
	}
	return subs, nil
}

func (a *App) typeNames() []string {
	names := []string{tools.DefaultAgentType, "explore", "fast"}
	return append(append(names, a.opts.Subagents.AgentNames()...), a.agents.files.names()...)
}

// profileOf is the profile thread id runs on now (from its summary), or
// the profile of new threads.
func (a *App) profileOf(id string) config.Profile {
	a.sumMu.Lock()
	name := a.summaries[id].Profile
	a.sumMu.Unlock()
	if p, ok := a.opts.Profile(name); ok {
		return p
	}
	return a.profile
}

// children returns parent's sub-agents with the given ids.
func (a *App) children(parent *Thread, ids []string) ([]*subagent, error) {
	a.sumMu.Lock()
	defer a.sumMu.Unlock()
	out := make([]*subagent, len(ids))
	for i, id := range ids {
		t := a.byID[id]
		if t == nil || t.agents.self == nil || t.agents.self.parent != parent {
			return nil, fmt.Errorf("%q is not one of your sub-agents (use the ids spawn_subagents returned)", id)
		}
		out[i] = t.agents.self
	}
	return out, nil
}

// summaryOf returns the summary of thread id (for a sub-agent's header).
func (a *App) summaryOf(id string) view.ThreadSummary {
	a.sumMu.Lock()
	defer a.sumMu.Unlock()
	return a.summaries[id]
}

// kickAncestors tells the threads above t that something of t changed
// (an approval), so their sub-agent lines are drawn again.
func kickAncestors(t *Thread) {
	for s := t.agents.self; s != nil; s = s.parent.agents.self {
		s.parent.kickAgents()
	}
}

// warnAgents tells the user about problems in the sub-agent types.
func (a *App) warnAgents(problems []string) {
	if len(problems) > 0 {
		a.deps.Screen.Notify("magenta: "+strings.Join(problems, "; "), LevelWarn)
	}
}
