package provider

// Block kinds of a model's reasoning. Both appear only in assistant
// messages, before the text and tool calls they led to, and must be sent
// back unchanged: the Messages API checks the signature of the thinking
// that preceded a tool call when its result comes back.
const (
	// BlockThinking: Thinking, Signature.
	BlockThinking BlockKind = "thinking"
	// BlockRedactedThinking: RedactedData.
	BlockRedactedThinking BlockKind = "redacted_thinking"
)

// Reasoning configures extended thinking for one request. Each adapter
// uses the field its API knows and ignores the other.
type Reasoning struct {
	// BudgetTokens is Anthropic's thinking budget (at least 1024); 0
	// leaves thinking off.
	BudgetTokens int
	// Effort is an OpenAI-compatible reasoning_effort ("low", "medium",
	// "high"); "" sends none.
	Effort string
}

// ThinkingDelta is a piece of the model's reasoning as it streams. Index
// groups the deltas of one thinking block, as TextDelta's does.
type ThinkingDelta struct {
	Index int
	Text  string
}

func (ThinkingDelta) isEvent() {}
