package openai

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/magenta-nvim/magenta/pkg/provider"
	sdk "github.com/openai/openai-go/v3"
)

// legacyIndex keys the deprecated delta.function_call among tool calls.
const legacyIndex = -1

// toolCall is one tool call being assembled from fragments.
type toolCall struct {
	id         string
	fromServer bool // id came from the server, not from newID
	name       string
	args       strings.Builder
	started    bool // ToolUseStart was emitted
}

// accumulator turns chunks into events and, at the end, a Response.
type accumulator struct {
	emit     func(provider.Event)
	text     strings.Builder
	calls    []*toolCall
	byIndex  map[int64]int // wire index -> position in calls
	finish   string
	finished bool
	chunks   int
	usage    provider.Usage
}

func newAccumulator(emit func(provider.Event)) *accumulator {
	if emit == nil {
		emit = func(provider.Event) {}
	}
	return &accumulator{emit: emit, byIndex: map[int64]int{}}
}

func (a *accumulator) add(chunk sdk.ChatCompletionChunk) {
	a.chunks++
	if chunk.JSON.Usage.Valid() {
		// prompt_tokens is the whole prompt; the automatic prefix cache
		// reports the part it served under prompt_tokens_details. Cache
		// writes are not reported (nor billed) by OpenAI-compatible APIs.
		a.usage = provider.Usage{
			InputTokens:     int(chunk.Usage.PromptTokens),
			OutputTokens:    int(chunk.Usage.CompletionTokens),
			CacheReadTokens: int(chunk.Usage.PromptTokensDetails.CachedTokens),
		}
	}
	for _, choice := range chunk.Choices {
		if choice.Index != 0 {
			continue // we never ask for n > 1
		}
		d := choice.Delta
		if r := reasoningText(d); r != "" {
			a.emit(provider.ThinkingDelta{Index: 0, Text: r})
		}
		if text := d.Content + d.Refusal; text != "" {
			a.text.WriteString(text)
			a.emit(provider.TextDelta{Index: 0, Text: text})
		}
		for _, tc := range d.ToolCalls {
			a.toolDelta(tc.Index, tc.ID, tc.Function.Name, tc.Function.Arguments)
		}
		// Older OpenAI-compatible servers still stream the legacy field.
		//lint:ignore SA1019 kept on purpose for those servers
		if fc := d.FunctionCall; fc.Name != "" || fc.Arguments != "" {
			a.toolDelta(legacyIndex, "", fc.Name, fc.Arguments)
		}
		if choice.FinishReason != "" {
			a.finish = choice.FinishReason
			a.finished = true
		}
	}
}

// reasoningText is the reasoning a delta carries in the fields
// OpenAI-compatible servers use for it (DeepSeek and vLLM:
// reasoning_content; Ollama, OpenRouter, llama.cpp: reasoning). It is
// shown as thinking but never sent back: the Chat Completions protocol
// has no place for it.
func reasoningText(d sdk.ChatCompletionChunkChoiceDelta) string {
	for _, key := range []string{"reasoning_content", "reasoning"} {
		// Extra fields never report Valid; their raw JSON is there.
		f, ok := d.JSON.ExtraFields[key]
		if !ok {
			continue
		}
		var s string
		if json.Unmarshal([]byte(f.Raw()), &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

// toolDelta merges one tool call fragment and emits its events.
func (a *accumulator) toolDelta(index int64, id, name, args string) {
	pos, ok := a.byIndex[index]
	// Older Ollama releases put every call under index 0 and tell them
	// apart only by id: a different server id starts a new call.
	if ok && id != "" && a.calls[pos].fromServer && a.calls[pos].id != id {
		ok = false
	}
	if !ok {
		pos = len(a.calls)
		a.calls = append(a.calls, &toolCall{})
		a.byIndex[index] = pos
	}
	c := a.calls[pos]
	if id != "" && !c.started && !c.fromServer {
		c.id, c.fromServer = id, true
	}
	if name != "" && !c.started {
		c.name += name
	}
	pending := c.args.Len()
	c.args.WriteString(args)
	if !c.started && c.name != "" {
		if c.id == "" {
			c.id = newID(pos)
		}
		c.started = true
		a.emit(provider.ToolUseStart{Index: pos + 1, ID: c.id, Name: c.name})
		pending = 0 // flush arguments that arrived before the name
	}
	if c.started && c.args.Len() > pending {
		a.emit(provider.ToolUseDelta{Index: pos + 1, PartialJSON: c.args.String()[pending:]})
	}
}

// newID makes a tool call id for servers that send none.
func newID(pos int) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("call_%d_%s", pos, hex.EncodeToString(b[:]))
}

func (a *accumulator) response() *provider.Response {
	msg := provider.Message{Role: provider.RoleAssistant}
	if a.text.Len() > 0 {
		msg.Content = append(msg.Content, provider.TextBlock(a.text.String()))
	}
	for i, c := range a.calls {
		if c.id == "" {
			c.id = newID(i)
		}
		msg.Content = append(msg.Content, provider.Block{
			Kind:      provider.BlockToolUse,
			ToolUseID: c.id,
			ToolName:  c.name,
			Input:     provider.ToolInput([]byte(c.args.String())),
		})
	}
	return &provider.Response{
		Message:       msg,
		StopReason:    stopReason(a.finish, len(a.calls) > 0),
		RawStopReason: a.finish,
		Usage:         a.usage,
	}
}

func stopReason(finish string, hasCalls bool) provider.StopReason {
	switch finish {
	case "tool_calls", "function_call":
		return provider.StopToolUse
	case "stop":
		if hasCalls {
			return provider.StopToolUse
		}
		return provider.StopEndTurn
	case "length":
		return provider.StopMaxTokens
	default:
		return provider.StopOther
	}
}
