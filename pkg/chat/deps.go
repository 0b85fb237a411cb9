package chat

import (
	"context"

	"github.com/magenta-nvim/magenta/pkg/approval"
	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/chat/view"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/prompts"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/threadstore"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// Display receives frames. Publish must be safe for concurrent use and
// must not block: it keeps the latest frame per key.
type Display interface {
	Publish(key string, f *view.Frame)
}

// InputRestorer is implemented by a Screen that can put a message the
// thread could not take back into the input buffer, so it is not lost.
type InputRestorer interface {
	RestoreInput(text string)
}

// ToolServers are servers some of the tools come from (MCP). Safe for
// concurrent use.
type ToolServers interface {
	// Starting names the servers on their first start (neither ready
	// nor failed yet). It must be cheap and must not wait.
	Starting() []string
	// WaitStarted returns once none of names is on its first start any
	// more, or when ctx ends.
	WaitStarted(ctx context.Context, names []string)
}

// ProviderFactory builds the provider for a profile; it returns a
// *provider.MissingKeyError when the profile's key is not set.
type ProviderFactory func(config.Profile) (provider.Provider, error)

// Deps is what a thread needs from outside. Fields are required unless
// their comment says what nil means.
type Deps struct {
	Tools        *tools.Registry
	Env          *capabilities.Environment
	Display      Display
	NewProvider  ProviderFactory
	SystemPrompt string
	// OnSummary is called from the thread goroutine when the title,
	// status or profile changes. It must not block.
	OnSummary func(view.ThreadSummary)
	// Broker holds the approvals the thread's tools wait for; nil when
	// nothing in the environment asks.
	Broker *approval.Broker
	// ContextFiles reads the files the user attaches, through the same
	// file check as get_file but refusing (with the reason, shown in the
	// chat) what would ask: a file swapped for a link to a secret after
	// it was attached is not sent. Nil disables them.
	ContextFiles capabilities.FileIO
	// Profile finds a profile by name (a thread's compactProfile); nil:
	// only the thread's own profile is known.
	Profile func(name string) (config.Profile, bool)
	// Terminals opens interactive commands' terminal windows; nil: the
	// editor cannot (the key then says so).
	Terminals Terminals
	// TerminalKey is the key that opens a terminal (keymaps.display.terminal),
	// named in the blocks' hints; "" when disabled.
	TerminalKey string
	// ApprovalKeys are the keys that answer approvals (keymaps.display),
	// named in each approval block; nil: the defaults.
	ApprovalKeys *view.ApprovalKeys
	// MCP, when set, says which MCP servers are starting or failed, for
	// the header. It is called for every frame, from the thread
	// goroutine: it must be cheap and safe for concurrent use.
	MCP func() view.MCPLine
	// ToolServers are the servers behind some tools (MCP), which the
	// thread's first request waits for while they start; nil: none.
	ToolServers ToolServers
	// Observers react to the thread's events (events.go), told after the
	// thread's own (its log, its report to a parent); they must not block.
	Observers []Observer
	// Interceptors wrap every tool call the thread runs, on the call's
	// worker, first outermost (tools.Interceptor): what must happen
	// before a call, may veto it or adds to its result plugs in here.
	Interceptors []tools.Interceptor
	// PromptCheck looks at the user's messages before they are sent
	// (hooks; hookpoints.go); nil: none.
	PromptCheck PromptCheck
	// Store saves the thread (nil: it is not saved).
	Store *threadstore.Store
	// Prompts are the skills, commands and agents defined in files
	// (slash.go expands the commands; nil: none).
	Prompts *prompts.Library
	// ServerSearch lets an Anthropic profile search with the API's own
	// web search in place of web_search (search.anthropic; websearch.go).
	ServerSearch bool
	// agents links the thread to the app's sub-agents (zero: none).
	agents agentDeps
}
