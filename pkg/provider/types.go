package provider

import (
	"context"
	"encoding/json"
)

// Role is the author of a message.
type Role string

const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// BlockKind tells which fields of a Block are meaningful.
type BlockKind string

const (
	// BlockText: Text.
	BlockText BlockKind = "text"
	// BlockToolUse: ToolUseID, ToolName, Input. Only in assistant messages.
	BlockToolUse BlockKind = "tool_use"
	// BlockToolResult: ToolUseID, Result, IsError. Only in user messages.
	BlockToolResult BlockKind = "tool_result"
	// BlockImage: MediaType, Data (raw bytes, not base64).
	BlockImage BlockKind = "image"
)

// Block is one piece of a message. It is a tagged union over Kind; a value
// is immutable once it is part of a Message handed to a Provider.
//
// The json tags are the saved form of a thread (package threadstore):
// short, and empty fields left out, so a record costs little more than
// its text. A field added here needs a tag of its own and is saved with
// the rest.
type Block struct {
	Kind BlockKind `json:"kind"`

	Text string `json:"text,omitempty"`

	ToolUseID string `json:"id,omitempty"`
	ToolName  string `json:"name,omitempty"`
	// Input is the tool call's arguments as a JSON object. Adapters must
	// send "{}" when it is empty.
	Input json.RawMessage `json:"input,omitempty"`

	// Result is the content of a tool result: text and image blocks only.
	Result  []Block `json:"result,omitempty"`
	IsError bool    `json:"is_error,omitempty"`

	MediaType string `json:"media_type,omitempty"`
	Data      []byte `json:"data,omitempty"`

	// BlockThinking: the model's reasoning and the signature the API
	// checks when the block is sent back. BlockRedactedThinking: the
	// encrypted reasoning, sent back as it came.
	Thinking     string `json:"thinking,omitempty"`
	Signature    string `json:"signature,omitempty"`
	RedactedData string `json:"redacted_data,omitempty"`

	// Raw is a block in the provider's own form, sent back as is by the
	// adapter that made it (server-side tool blocks, a text block with
	// citations: websearch.go); other adapters use the fields above.
	Raw json.RawMessage `json:"raw,omitempty"`
	// Sources are what a server-side search found
	// (BlockServerToolResult) or a text block cites, for the chat.
	Sources []Source `json:"sources,omitempty"`
}

// TextBlock returns a text block.
func TextBlock(s string) Block { return Block{Kind: BlockText, Text: s} }

// ToolResultBlock returns a tool result holding one text block.
func ToolResultBlock(toolUseID, text string, isError bool) Block {
	return Block{Kind: BlockToolResult, ToolUseID: toolUseID, Result: []Block{TextBlock(text)}, IsError: isError}
}

// InvalidArgumentsKey is the field under which an adapter passes tool
// arguments that were not a JSON object ({"_invalid_arguments": "<raw>"}),
// so the tool layer can tell the model what it sent. tools.InvalidArgumentsKey
// must be the same (a test in package chat checks it).
const InvalidArgumentsKey = "_invalid_arguments"

// Message is one turn of the conversation.
type Message struct {
	Role    Role    `json:"role"`
	Content []Block `json:"content"`
}

// ToolSpec describes a tool offered to the model.
type ToolSpec struct {
	Name        string
	Description string
	// InputSchema is a JSON Schema object describing the tool's input.
	InputSchema json.RawMessage
}

// Request is one completion request.
type Request struct {
	Model     string
	System    string
	Messages  []Message
	Tools     []ToolSpec
	MaxTokens int
	// Reasoning asks for extended thinking (see Reasoning); zero: none.
	Reasoning Reasoning
	// ServerSearch, when set, offers the provider's own web search
	// (websearch.go) beside Tools.
	ServerSearch *ServerSearch `json:",omitempty"`
}

// StopReason says why the model stopped.
type StopReason string

const (
	StopEndTurn   StopReason = "end_turn"
	StopToolUse   StopReason = "tool_use"
	StopMaxTokens StopReason = "max_tokens"
	// StopOther covers reasons the loop treats like end_turn (stop
	// sequences, refusals, content filters); Response.RawStopReason keeps
	// the provider's word.
	StopOther StopReason = "other"
)

// Usage counts tokens for one response, when the provider reports them.
type Usage struct {
	// InputTokens is the whole prompt, cached parts included.
	InputTokens int
	// OutputTokens is what the model generated.
	OutputTokens int
	// CacheReadTokens is the part of InputTokens read from the provider's
	// prompt cache (billed at a discount).
	CacheReadTokens int
	// CacheWriteTokens is the part of InputTokens written to the prompt
	// cache (Anthropic bills it at a premium; OpenAI never reports it).
	CacheWriteTokens int
}

// IsZero reports whether no tokens were counted.
func (u Usage) IsZero() bool { return u == Usage{} }

// Response is the assembled result of a completed stream.
type Response struct {
	// Message is the assistant message: thinking, text and tool_use
	// blocks in the order the model produced them. Tool inputs are
	// complete JSON objects.
	Message       Message
	StopReason    StopReason
	RawStopReason string
	Usage         Usage
}

// Provider streams one completion.
//
// Stream blocks until the completion ends. It calls emit for each event,
// in order, on the calling goroutine, and emit must not block for long.
// On success it returns the assembled response. On failure it returns an
// error; when it is a *Error its Retryable field says whether sending the
// same request again may succeed. Cancelling ctx ends the stream promptly
// with an error wrapping ctx.Err().
//
// Implementations are safe for concurrent use by several threads.
type Provider interface {
	Stream(ctx context.Context, req Request, emit func(Event)) (*Response, error)
}

// ProviderFunc adapts a function to Provider.
type ProviderFunc func(ctx context.Context, req Request, emit func(Event)) (*Response, error)

// Stream calls f.
func (f ProviderFunc) Stream(ctx context.Context, req Request, emit func(Event)) (*Response, error) {
	return f(ctx, req, emit)
}
