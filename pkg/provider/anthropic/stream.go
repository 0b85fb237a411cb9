package anthropic

import (
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go"

	"github.com/magenta-nvim/magenta/pkg/provider"
)

// streamState follows one response stream. It accumulates the SDK's
// message and decides which content blocks become part of the provider
// message, and at which position.
//
// Thinking, redacted thinking, text, tool_use and the web search's
// server_tool_use and web_search_tool_result blocks are kept; other
// server tools' are not. A tool_use, thinking or redacted_thinking block
// takes the next position when it starts; a text block only when its
// first non-empty text arrives, so that empty text blocks (which the API
// would reject when the message is sent back) are dropped without leaving
// holes. Events carry these positions, which therefore always match
// Response.Message.Content.
type streamState struct {
	msg     sdk.Message
	pos     map[int64]int  // wire index → position in the provider message
	pending map[int64]bool // text blocks that have no position yet
	order   []int64        // wire indexes, by position
	// The tool input as streamed: the SDK's accumulated Input is empty
	// when the text is not valid JSON, and the model must be told what
	// it actually sent.
	toolArgs map[int64]*strings.Builder
	started  bool // message_start seen
	stopped  bool // message_stop seen

	server map[int64]bool // server_tool_use blocks (websearch.go)
}

func newStreamState() *streamState {
	return &streamState{pos: map[int64]int{}, pending: map[int64]bool{}, toolArgs: map[int64]*strings.Builder{}, server: map[int64]bool{}}
}

// handle folds one event into the state and emits what it reveals.
func (s *streamState) handle(ev sdk.MessageStreamEventUnion, emit func(provider.Event)) error {
	if ev.Type == "message_start" {
		if s.started {
			return &provider.Error{Kind: provider.ErrProtocol, Message: "unexpected stream event: a second message_start"}
		}
		s.started = true
	}
	if err := s.msg.Accumulate(ev); err != nil {
		return &provider.Error{Kind: provider.ErrProtocol, Message: "unexpected stream event: " + err.Error(), Err: err}
	}
	switch ev.Type {
	case "content_block_start":
		switch ev.ContentBlock.Type {
		case "text":
			s.pending[ev.Index] = true
			s.text(ev.Index, ev.ContentBlock.Text, emit)
		case "tool_use":
			p := s.place(ev.Index)
			s.toolArgs[ev.Index] = &strings.Builder{}
			emit(provider.ToolUseStart{Index: p, ID: ev.ContentBlock.ID, Name: ev.ContentBlock.Name})
		case "thinking":
			p := s.place(ev.Index)
			if ev.ContentBlock.Thinking != "" {
				emit(provider.ThinkingDelta{Index: p, Text: ev.ContentBlock.Thinking})
			}
		case "redacted_thinking":
			s.place(ev.Index)
		case "server_tool_use":
			// Kept (its input streams like a tool call's), but not
			// announced: the chat runs nothing for it.
			s.place(ev.Index)
			s.toolArgs[ev.Index] = &strings.Builder{}
			s.server[ev.Index] = true
		case "web_search_tool_result":
			s.place(ev.Index)
		}
	case "content_block_delta":
		switch ev.Delta.Type {
		case "text_delta":
			s.text(ev.Index, ev.Delta.Text, emit)
		case "thinking_delta":
			if p, ok := s.pos[ev.Index]; ok && ev.Delta.Thinking != "" {
				emit(provider.ThinkingDelta{Index: p, Text: ev.Delta.Thinking})
			}
		case "input_json_delta":
			if p, ok := s.pos[ev.Index]; ok && ev.Delta.PartialJSON != "" {
				if b := s.toolArgs[ev.Index]; b != nil {
					b.WriteString(ev.Delta.PartialJSON)
				}
				if !s.server[ev.Index] {
					emit(provider.ToolUseDelta{Index: p, PartialJSON: ev.Delta.PartialJSON})
				}
			}
		}
	case "message_stop":
		s.stopped = true
	}
	return nil
}

func (s *streamState) place(wire int64) int {
	p := len(s.order)
	s.pos[wire] = p
	s.order = append(s.order, wire)
	return p
}

func (s *streamState) text(wire int64, text string, emit func(provider.Event)) {
	if text == "" {
		return
	}
	p, ok := s.pos[wire]
	if !ok {
		if !s.pending[wire] {
			return // text for a block we do not keep
		}
		delete(s.pending, wire)
		p = s.place(wire)
	}
	emit(provider.TextDelta{Index: p, Text: text})
}

// response assembles the result once message_stop has arrived.
func (s *streamState) response() *provider.Response {
	blocks := make([]provider.Block, 0, len(s.order))
	for _, w := range s.order {
		cb := s.msg.Content[w]
		switch cb.Type {
		case "text":
			blocks = append(blocks, citedText(cb)) // websearch.go
		case "tool_use":
			blocks = append(blocks, provider.Block{
				Kind:      provider.BlockToolUse,
				ToolUseID: cb.ID,
				ToolName:  cb.Name,
				Input:     s.toolInput(w, cb),
			})
		case "thinking":
			// Kept byte for byte with its signature: the API checks it
			// when the block is sent back.
			blocks = append(blocks, provider.Block{Kind: provider.BlockThinking, Thinking: cb.Thinking, Signature: cb.Signature})
		case "redacted_thinking":
			blocks = append(blocks, provider.Block{Kind: provider.BlockRedactedThinking, RedactedData: cb.Data})
		default:
			if b, ok := serverBlock(cb, s.toolInput(w, cb)); ok {
				blocks = append(blocks, b)
			}
		}
	}
	u := s.msg.Usage
	stop, raw := mapStopReason(string(s.msg.StopReason))
	return &provider.Response{
		Message:       provider.Message{Role: provider.RoleAssistant, Content: blocks},
		StopReason:    stop,
		RawStopReason: raw,
		Usage: provider.Usage{
			// input_tokens excludes the prompt-cache reads and writes;
			// the sum is the whole prompt.
			InputTokens:      int(u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens),
			OutputTokens:     int(u.OutputTokens),
			CacheReadTokens:  int(u.CacheReadInputTokens),
			CacheWriteTokens: int(u.CacheCreationInputTokens),
		},
	}
}

// toolInput is the input of the tool_use block at wire index w: what was
// streamed, or the block's own input when nothing was.
func (s *streamState) toolInput(w int64, cb sdk.ContentBlockUnion) []byte {
	if b := s.toolArgs[w]; b != nil && b.Len() > 0 {
		return provider.ToolInput([]byte(b.String()))
	}
	return provider.ToolInput(cb.Input)
}

// mapStopReason maps Anthropic's stop_reason to the provider's; the raw
// word is returned as well.
func mapStopReason(raw string) (provider.StopReason, string) {
	switch raw {
	case "end_turn":
		return provider.StopEndTurn, raw
	case "tool_use":
		return provider.StopToolUse, raw
	case "max_tokens":
		return provider.StopMaxTokens, raw
	default:
		return provider.StopOther, raw
	}
}
