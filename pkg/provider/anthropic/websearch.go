package anthropic

import (
	"bytes"
	"encoding/json"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/packages/param"

	"github.com/magenta-nvim/magenta/pkg/provider"
)

// The API's own web search (a server tool): the request offers
// {"type":"web_search_20250305","name":"web_search","max_uses":N}; the
// response then holds server_tool_use blocks (the query), each followed
// by a web_search_tool_result (the pages, with encrypted content), and
// text blocks whose citations point into those pages. All of them must go
// back unchanged on the next turn, so each is kept as the raw JSON the
// stream assembled (provider.Block.Raw) beside the few fields the chat
// draws.

// serverSearchTool is the tool offered for r.
func serverSearchTool(r *provider.ServerSearch) sdk.ToolUnionParam {
	t := sdk.WebSearchTool20250305Param{}
	if r.MaxUses > 0 {
		t.MaxUses = sdk.Int(int64(r.MaxUses))
	}
	return sdk.ToolUnionParam{OfWebSearchTool20250305: &t}
}

// rawBlockParam sends a kept block back as it came. keep is false when
// there is nothing to send (a block saved without its raw form).
func rawBlockParam(raw json.RawMessage) (sdk.ContentBlockParamUnion, bool) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || t[0] != '{' || !json.Valid(t) {
		return sdk.ContentBlockParamUnion{}, false
	}
	return param.Override[sdk.ContentBlockParamUnion](json.RawMessage(t)), true
}

// serverBlock turns a server_tool_use or web_search_tool_result block of
// the response into a provider block; ok is false for other server
// blocks, which are not kept.
func serverBlock(cb sdk.ContentBlockUnion, input json.RawMessage) (provider.Block, bool) {
	raw := json.RawMessage(cb.RawJSON())
	switch cb.Type {
	case "server_tool_use":
		return provider.Block{Kind: provider.BlockServerToolUse, ToolUseID: cb.ID, ToolName: cb.Name, Input: input, Raw: raw}, true
	case "web_search_tool_result":
		b := provider.Block{Kind: provider.BlockServerToolResult, ToolUseID: cb.ToolUseID, Raw: raw}
		var res struct {
			Content json.RawMessage `json:"content"`
		}
		_ = json.Unmarshal(raw, &res)
		var pages []struct {
			Title string `json:"title"`
			URL   string `json:"url"`
		}
		var failure struct {
			ErrorCode string `json:"error_code"`
		}
		switch {
		case json.Unmarshal(res.Content, &pages) == nil:
			for _, p := range pages {
				b.Sources = append(b.Sources, provider.Source{Title: p.Title, URL: p.URL})
			}
		case json.Unmarshal(res.Content, &failure) == nil:
			b.IsError, b.Text = true, failure.ErrorCode
		}
		return b, true
	}
	return provider.Block{}, false
}

// citedText is a text block with its citations kept: Raw for the next
// turn, the web pages it cites as Sources for the chat.
func citedText(cb sdk.ContentBlockUnion) provider.Block {
	b := provider.TextBlock(cb.Text)
	if len(cb.Citations) == 0 {
		return b
	}
	b.Raw = json.RawMessage(cb.RawJSON())
	for _, c := range cb.Citations {
		if c.Type == "web_search_result_location" && c.URL != "" {
			b.Sources = append(b.Sources, provider.Source{Title: c.Title, URL: c.URL})
		}
	}
	return b
}

// citedTextParam sends a text block that cites sources as it came, with
// its citations; ok is false for plain text, or when the kept form no
// longer holds b's text (then the text goes without its citations).
func citedTextParam(b provider.Block) (sdk.ContentBlockParamUnion, bool) {
	if len(b.Raw) == 0 {
		return sdk.ContentBlockParamUnion{}, false
	}
	var kept struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(b.Raw, &kept) != nil || kept.Text != b.Text {
		return sdk.ContentBlockParamUnion{}, false
	}
	return rawBlockParam(b.Raw)
}
