package provider

// Block kinds of a provider's server-side tool (Anthropic's web search):
// the provider runs the tool itself within one response, so these appear
// only in assistant messages, never call a tool of ours, and must be
// sent back unchanged on the next turn (Raw, as the provider sent it).
// An adapter that did not make them drops them.
const (
	// BlockServerToolUse: ToolUseID, ToolName, Input (the search's
	// {"query": …}); Raw.
	BlockServerToolUse BlockKind = "server_tool_use"
	// BlockServerToolResult: ToolUseID of the use it answers; Sources
	// found, or IsError with Text naming the provider's error code; Raw.
	BlockServerToolResult BlockKind = "server_tool_result"
)

// Source is a page a server-side search found or a reply cites.
type Source struct {
	Title string `json:"title,omitempty"`
	URL   string `json:"url"`
}

// ServerSearch asks for the provider's own web search in a request,
// where the adapter knows one (Anthropic); others ignore it.
type ServerSearch struct {
	// MaxUses caps the searches of one response.
	MaxUses int `json:"max_uses"`
}

// DefaultServerSearchUses is ServerSearch.MaxUses as the chat sends it.
const DefaultServerSearchUses = 5
