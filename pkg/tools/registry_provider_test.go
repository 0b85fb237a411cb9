package tools

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

type namedTool struct{ name string }

func (n namedTool) Spec() Spec                       { return Spec{Name: n.name} }
func (n namedTool) Run(context.Context, Call) Result { return Result{Text: "ran " + n.name} }
func (n namedTool) Needs() []capabilities.Capability { return nil }

// changingProvider stands for a server whose tools appear once it is up.
type changingProvider struct {
	mu    sync.Mutex
	tools []Tool
}

func (p *changingProvider) Tools() []Tool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.tools
}

// Provided tools join the offer (and the run) as soon as the provider
// has them, in registries derived for sub-agents too; a built-in keeps
// its name.
func TestProvidedToolsJoinTheOffer(t *testing.T) {
	p := &changingProvider{}
	reg := Default().WithProvider(p)
	env := &capabilities.Environment{Cwd: "/w"}
	assert.Equal(t, []string{"thread_title", "todo_write"}, offeredNames(reg, env))
	assert.True(t, reg.Run(context.Background(), "mcp__s__x", Call{}).IsError)

	p.mu.Lock()
	p.tools = []Tool{namedTool{"mcp__s__x"}, namedTool{"thread_title"}}
	p.mu.Unlock()
	assert.Equal(t, []string{"mcp__s__x", "thread_title", "todo_write"}, offeredNames(reg, env))
	assert.Equal(t, "ran mcp__s__x", reg.Run(context.Background(), "mcp__s__x", Call{}).Text)
	tt, _ := reg.Tool("thread_title")
	assert.IsType(t, ThreadTitle(), tt, "a provided tool does not replace a built-in")

	sub, _ := reg.Only([]string{"grep"})
	sub = sub.With(YieldToParent())
	assert.Contains(t, offeredNames(sub, env), "mcp__s__x", "a sub-agent keeps the provided tools")
}

// TestEveryBuiltinToolBuilds: MustTyped tools build their schema and
// description on first use; this reaches every one, in every
// shell.interactive mode, so a mistake fails here rather than in a
// user's first request.
func TestEveryBuiltinToolBuilds(t *testing.T) {
	for _, mode := range []string{"", InteractiveModel, InteractiveAlways, InteractiveNever} {
		reg := Builtin(Config{ShellInteractive: mode})
		reg.Warm()
		for _, s := range reg.Specs() {
			require.NotEmpty(t, s.Description, s.Name)
			require.NotEmpty(t, s.InputSchema, s.Name)
		}
	}
	for _, tool := range []Tool{SpawnSubagents([]AgentType{{Name: "x", Description: "y"}}, 2), WaitForSubagents(), YieldToParent()} {
		require.NotEmpty(t, tool.Spec().Description)
	}
}
