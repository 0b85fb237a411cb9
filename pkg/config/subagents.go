package config

import (
	"fmt"
	"sort"
)

// Sub-agent defaults, used when the options leave a value at zero.
const (
	DefaultMaxConcurrentSubagents = 4
	// MaxSubagentDepth caps maxDepth: each level multiplies what may run
	// at once by maxConcurrent.
	MaxSubagentDepth = 3
)

// BuiltinAgentTypes are the sub-agent types magenta defines; user types
// may not reuse their names.
var BuiltinAgentTypes = []string{"subagent", "explore", "fast"}

// AgentType is a sub-agent type the user defines.
type AgentType struct {
	// Description tells the model when to use the type.
	Description string `json:"description"`
	// SystemPrompt is added to the sub-agent's system prompt.
	SystemPrompt string `json:"systemPrompt,omitempty"`
	// Tools names the tools the type may use (yield_to_parent is always
	// added); empty means the parent's tools.
	Tools []string `json:"tools,omitempty"`
	// Profile is the profile it runs on; empty means the parent's.
	Profile string `json:"profile,omitempty"`
}

// Subagents configures spawn_subagents.
type Subagents struct {
	// MaxConcurrent is how many sub-agents of one parent run at once (0:
	// DefaultMaxConcurrentSubagents); the rest queue.
	MaxConcurrent int `json:"maxConcurrent,omitempty"`
	// MaxDepth is how deep sub-agents nest: 0 offers no spawning, 1 lets
	// the user's threads spawn leaves, 2 lets those spawn too.
	MaxDepth int `json:"maxDepth,omitempty"`
	// FastProfile is the profile of the "fast" type (empty: the parent's).
	FastProfile string `json:"fastProfile,omitempty"`
	// Agents are the user's types by name.
	Agents map[string]AgentType `json:"agents,omitempty"`
}

// Concurrency is MaxConcurrent or its default.
func (s Subagents) Concurrency() int {
	if s.MaxConcurrent > 0 {
		return s.MaxConcurrent
	}
	return DefaultMaxConcurrentSubagents
}

// AgentNames returns the user's type names, sorted.
func (s Subagents) AgentNames() []string {
	names := make([]string, 0, len(s.Agents))
	for name := range s.Agents {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

func (o Options) validateSubagents() error {
	s := o.Subagents
	const where = "magenta options: subagents"
	if s.MaxConcurrent < 0 {
		return fmt.Errorf("%s.maxConcurrent: must be positive", where)
	}
	if s.MaxDepth < 0 || s.MaxDepth > MaxSubagentDepth {
		return fmt.Errorf("%s.maxDepth: must be between 0 and %d", where, MaxSubagentDepth)
	}
	if s.FastProfile != "" {
		if _, ok := o.Profile(s.FastProfile); !ok {
			return fmt.Errorf("%s.fastProfile: no profile is called %q", where, s.FastProfile)
		}
	}
	for _, name := range s.AgentNames() {
		a := s.Agents[name]
		at := fmt.Sprintf("%s.agents.%s", where, name)
		if name == "" {
			return fmt.Errorf("%s.agents: a type needs a non-empty name", where)
		}
		for _, b := range BuiltinAgentTypes {
			if name == b {
				return fmt.Errorf("%s: %q is a built-in type; choose another name", at, name)
			}
		}
		if a.Description == "" {
			return fmt.Errorf("%s.description: must be a non-empty string (the model reads it to choose the type)", at)
		}
		if a.Profile != "" {
			if _, ok := o.Profile(a.Profile); !ok {
				return fmt.Errorf("%s.profile: no profile is called %q", at, a.Profile)
			}
		}
		for i, tool := range a.Tools {
			if tool == "" {
				return fmt.Errorf("%s.tools[%d]: must be a tool name", at, i+1)
			}
		}
	}
	return nil
}
