package tools

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
)

// Subagents is what the sub-agent tools need from the thread that calls
// them; package chat implements it (tools cannot import chat). Methods
// are called on the tool's goroutine and are safe for concurrent use.
type Subagents interface {
	// Spawn starts one sub-agent per request (queued behind the
	// concurrency limit) and returns their ids in order. ctx is the tool
	// call's: context files are read under it, through the permission
	// decorators, so their approvals appear in the spawn call.
	Spawn(ctx context.Context, reqs []SpawnRequest) ([]string, error)
	// Wait blocks until every sub-agent in ids has finished, or ctx ends
	// (then the unfinished ones are reported aborted). Only the caller's
	// own sub-agents can be waited for.
	Wait(ctx context.Context, ids []string) ([]SubagentResult, error)
	// Yield ends the calling sub-agent with result once the current
	// tool round is over. It fails in a thread that is not a sub-agent.
	Yield(result string) error
}

// SpawnRequest is one sub-agent to start.
type SpawnRequest struct {
	Prompt       string   `json:"prompt" jsonschema:"the complete task: the sub-agent sees nothing of your conversation but this and its context files"`
	AgentType    string   `json:"agentType,omitempty" jsonschema:"the kind of sub-agent (default subagent); see the tool description"`
	ContextFiles []string `json:"contextFiles,omitempty" jsonschema:"files to include in the sub-agent's first message (paths relative to the workspace or absolute), read where the sub-agent works"`
	Environment  string   `json:"environment,omitempty" jsonschema:"where the sub-agent works (default: where you work); see the tool description"`
}

// Free-form values of SpawnRequest.Environment: a container or a host the
// user did not name in setup(), each asked before the sub-agent starts.
// The directory after a second colon is optional and absolute.
const (
	SpawnEnvDocker = "docker:"
	SpawnEnvSSH    = "ssh:"
)

// SpawnEnvForms is how the tool description spells the free-form values.
const SpawnEnvForms = "`" + SpawnEnvDocker + "<container>[:<dir>]` or `" + SpawnEnvSSH + "<host>[:<dir>]`"

// SpawnEnvironment is one of the user's named environments, as the tool
// description lists it.
type SpawnEnvironment struct {
	Name  string
	Where string // what it is: "ssh devbox, /srv/app"
}

// SpawnConfig is what spawn_subagents' description tells the model.
type SpawnConfig struct {
	// Types are the sub-agent types; More, when set, adds types asked
	// for at every request that offers the tool (types defined in
	// files, read on first need).
	Types []AgentType
	More  func() []AgentType
	// Environments are the user's named environments (none: the
	// description mentions only the free-form values).
	Environments []SpawnEnvironment
	// MaxConcurrent is how many sub-agents of one parent run at once.
	MaxConcurrent int
}

// Sub-agent end states, as the model and the UI see them.
const (
	SubagentDone    = "done"
	SubagentError   = "error"
	SubagentAborted = "aborted"
)

// SubagentResult is how one sub-agent ended.
type SubagentResult struct {
	ID        string
	AgentType string
	State     string // SubagentDone, SubagentError or SubagentAborted
	Text      string // the answer, or what went wrong
}

// AgentType is a kind of sub-agent as the spawn tool describes it.
type AgentType struct {
	Name        string
	Description string
}

// DefaultAgentType is the type of a sub-agent spawned without one.
const DefaultAgentType = "subagent"

//go:embed spawn_subagents.md
var spawnSubagentsDescription string

//go:embed wait_for_subagents.md
var waitForSubagentsDescription string

//go:embed yield_to_parent.md
var yieldToParentDescription string

// SpawnSubagentsParams is the input of spawn_subagents.
type SpawnSubagentsParams struct {
	Agents   []SpawnRequest `json:"agents" jsonschema:"the sub-agents to start, one per independent task"`
	Blocking *bool          `json:"blocking,omitempty" jsonschema:"wait for all of them and return their results (default true); false returns their ids at once"`
}

// WaitForSubagentsParams is the input of wait_for_subagents.
type WaitForSubagentsParams struct {
	IDs []string `json:"ids" jsonschema:"the ids spawn_subagents returned"`
}

// YieldToParentParams is the input of yield_to_parent.
type YieldToParentParams struct {
	Result string `json:"result" jsonschema:"your complete answer to the task; it is all the agent that spawned you sees"`
}

// SpawnSubagents returns the spawn_subagents tool; its description lists
// types (the built-in ones and the user's) and the concurrency limit.
func SpawnSubagents(types []AgentType, maxConcurrent int) Tool {
	return NewSpawnSubagents(SpawnConfig{Types: types, MaxConcurrent: maxConcurrent})
}

// NewSpawnSubagents returns the spawn_subagents tool described by c.
func NewSpawnSubagents(c SpawnConfig) Tool {
	tool := MustTyped("spawn_subagents", spawnSubagentsDescription, spawnData(c, c.Types),
		func(ctx context.Context, call Call, p SpawnSubagentsParams) Result {
			if call.Subagents == nil {
				return Errorf("spawn_subagents: this thread cannot spawn sub-agents")
			}
			if len(p.Agents) == 0 {
				return Errorf("spawn_subagents: agents must list at least one sub-agent")
			}
			for i, a := range p.Agents {
				if strings.TrimSpace(a.Prompt) == "" {
					return Errorf(fmt.Sprintf("spawn_subagents: agents[%d].prompt must not be empty", i))
				}
			}
			ids, err := call.Subagents.Spawn(ctx, p.Agents)
			if err != nil {
				return Errorf("spawn_subagents: " + err.Error())
			}
			if p.Blocking != nil && !*p.Blocking {
				return Result{
					Text: fmt.Sprintf("Started %d sub-agent(s): %s\nCall wait_for_subagents with these ids to get their results.",
						len(ids), strings.Join(ids, ", ")),
					Summary: fmt.Sprintf("%d sub-agent(s) started", len(ids)),
				}
			}
			return waitResult(ctx, call.Subagents, ids)
		})
	if c.More == nil {
		return tool
	}
	return &spawnWith{Tool: tool, config: c}
}

// spawnData fills spawn_subagents' description from c, with types in
// place of c.Types.
func spawnData(c SpawnConfig, types []AgentType) any {
	list := make([]string, len(types))
	for i, t := range types {
		list[i] = fmt.Sprintf("- `%s`: %s", t.Name, t.Description)
	}
	return struct {
		TypeList      string
		Default       string
		MaxConcurrent int
		Environments  string
	}{strings.Join(list, "\n"), DefaultAgentType, c.MaxConcurrent, environmentsText(c.Environments)}
}

// environmentsText is the description's paragraph about environment:
// the user's environments when there are any; without them only that
// the free-form values ask.
func environmentsText(envs []SpawnEnvironment) string {
	if len(envs) == 0 {
		return "- `environment` (" + SpawnEnvForms + ") runs a sub-agent in a container or on another machine; the user is asked before it starts (its `contextFiles` are read there). Leave it out unless the user asked for it."
	}
	var b strings.Builder
	b.WriteString("- `environment` runs a sub-agent elsewhere: leave it out to keep it where you work, or name one of the user's environments, which start without asking:\n")
	for _, e := range envs {
		fmt.Fprintf(&b, "  - `%s`: %s\n", e.Name, e.Where)
	}
	b.WriteString("  Anything else must be " + SpawnEnvForms + ", and the user is asked before that sub-agent starts. A sub-agent elsewhere works on that machine's files: its `contextFiles` are read there (relative paths from its directory).")
	return b.String()
}

// WaitForSubagents returns the wait_for_subagents tool.
func WaitForSubagents() Tool {
	return MustTyped("wait_for_subagents", waitForSubagentsDescription, nil,
		func(ctx context.Context, call Call, p WaitForSubagentsParams) Result {
			if call.Subagents == nil {
				return Errorf("wait_for_subagents: this thread has no sub-agents")
			}
			if len(p.IDs) == 0 {
				return Errorf("wait_for_subagents: ids must list at least one sub-agent")
			}
			return waitResult(ctx, call.Subagents, p.IDs)
		})
}

// YieldToParent returns the yield_to_parent tool, offered only in
// sub-agent threads.
func YieldToParent() Tool {
	return MustTyped("yield_to_parent", yieldToParentDescription, nil,
		func(_ context.Context, call Call, p YieldToParentParams) Result {
			if call.Subagents == nil {
				return Errorf("yield_to_parent: this thread is not a sub-agent")
			}
			if err := call.Subagents.Yield(p.Result); err != nil {
				return Errorf("yield_to_parent: " + err.Error())
			}
			return Result{Text: "Your result was delivered; stop here.", Summary: "result delivered"}
		})
}

func waitResult(ctx context.Context, s Subagents, ids []string) Result {
	results, err := s.Wait(ctx, ids)
	if err != nil {
		return Errorf("wait_for_subagents: " + err.Error())
	}
	return FormatSubagentResults(results)
}

// FormatSubagentResults is what the model reads: one section per
// sub-agent with its state and answer. It is an error result only when
// every sub-agent failed.
func FormatSubagentResults(results []SubagentResult) Result {
	var b strings.Builder
	counts := map[string]int{}
	for i, r := range results {
		if i > 0 {
			b.WriteString("\n\n")
		}
		counts[r.State]++
		fmt.Fprintf(&b, "## sub-agent %s (%s): %s\n%s", r.ID, r.AgentType, r.State, strings.TrimSpace(r.Text))
	}
	var parts []string
	for _, s := range []string{SubagentDone, SubagentError, SubagentAborted} {
		if counts[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[s], s))
		}
	}
	return Result{Text: b.String(), Summary: strings.Join(parts, ", "), IsError: len(results) > 0 && counts[SubagentDone] == 0}
}
