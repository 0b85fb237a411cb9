package openai

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/magenta-nvim/magenta/pkg/provider"
	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/shared"
)

// buildParams translates a provider request into Chat Completions
// parameters. completionTokens picks max_completion_tokens (OpenAI) over
// max_tokens (everyone else) for req.MaxTokens.
func buildParams(req provider.Request, completionTokens bool) (sdk.ChatCompletionNewParams, error) {
	p := sdk.ChatCompletionNewParams{
		Model:         shared.ChatModel(req.Model),
		StreamOptions: sdk.ChatCompletionStreamOptionsParam{IncludeUsage: param.NewOpt(true)},
	}
	if req.MaxTokens > 0 {
		if completionTokens {
			p.MaxCompletionTokens = param.NewOpt(int64(req.MaxTokens))
		} else {
			p.MaxTokens = param.NewOpt(int64(req.MaxTokens))
		}
	}
	if req.Reasoning.Effort != "" {
		p.ReasoningEffort = shared.ReasoningEffort(req.Reasoning.Effort)
	}
	if req.System != "" {
		p.Messages = append(p.Messages, sdk.SystemMessage(req.System))
	}
	for _, m := range req.Messages {
		switch m.Role {
		case provider.RoleAssistant:
			if msg, ok := assistantMessage(m); ok {
				p.Messages = append(p.Messages, msg)
			}
		case provider.RoleUser:
			p.Messages = append(p.Messages, userMessages(m)...)
		default:
			return p, invalidf("unsupported message role %q", m.Role)
		}
	}
	for _, t := range req.Tools {
		tool, err := functionTool(t)
		if err != nil {
			return p, err
		}
		p.Tools = append(p.Tools, tool)
	}
	return p, nil
}

func invalidf(format string, args ...any) *provider.Error {
	return &provider.Error{Kind: provider.ErrInvalid, Message: fmt.Sprintf(format, args...)}
}

func functionTool(t provider.ToolSpec) (sdk.ChatCompletionToolUnionParam, error) {
	schema := shared.FunctionParameters{"type": "object", "properties": map[string]any{}}
	if len(bytes.TrimSpace(t.InputSchema)) > 0 {
		schema = shared.FunctionParameters{}
		if err := json.Unmarshal(t.InputSchema, &schema); err != nil {
			return sdk.ChatCompletionToolUnionParam{}, invalidf("tool %q: input schema is not a JSON object: %v", t.Name, err)
		}
	}
	def := shared.FunctionDefinitionParam{Name: t.Name, Parameters: schema}
	if t.Description != "" {
		def.Description = param.NewOpt(t.Description)
	}
	return sdk.ChatCompletionFunctionTool(def), nil
}

// assistantMessage joins the text blocks and turns tool_use blocks into
// function tool calls. It reports false for a message with neither.
func assistantMessage(m provider.Message) (sdk.ChatCompletionMessageParamUnion, bool) {
	var texts []string
	var calls []sdk.ChatCompletionMessageToolCallUnionParam
	for _, b := range m.Content {
		switch b.Kind {
		case provider.BlockText:
			if b.Text != "" {
				texts = append(texts, b.Text)
			}
		case provider.BlockToolUse:
			args := string(bytes.TrimSpace(b.Input))
			if args == "" {
				args = "{}"
			}
			calls = append(calls, sdk.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &sdk.ChatCompletionMessageFunctionToolCallParam{
					ID: b.ToolUseID,
					Function: sdk.ChatCompletionMessageFunctionToolCallFunctionParam{
						Name:      b.ToolName,
						Arguments: args,
					},
				},
			})
		}
	}
	if len(texts) == 0 && len(calls) == 0 {
		return sdk.ChatCompletionMessageParamUnion{}, false
	}
	var a sdk.ChatCompletionAssistantMessageParam
	if len(texts) > 0 {
		a.Content.OfString = param.NewOpt(strings.Join(texts, "\n\n"))
	}
	a.ToolCalls = calls
	return sdk.ChatCompletionMessageParamUnion{OfAssistant: &a}, true
}

// userMessages returns the tool messages for the tool results in m, then
// one user message with m's text and images plus any images the tool
// results carried.
func userMessages(m provider.Message) []sdk.ChatCompletionMessageParamUnion {
	var out []sdk.ChatCompletionMessageParamUnion
	var resultParts, ownParts []sdk.ChatCompletionContentPartUnionParam
	for _, b := range m.Content {
		switch b.Kind {
		case provider.BlockText:
			ownParts = append(ownParts, sdk.TextContentPart(b.Text))
		case provider.BlockImage:
			ownParts = append(ownParts, imagePart(b))
		case provider.BlockToolResult:
			text, images := toolResultContent(b)
			out = append(out, sdk.ToolMessage(text, b.ToolUseID))
			if len(images) > 0 {
				intro := fmt.Sprintf("Image(s) returned by tool call %s:", b.ToolUseID)
				resultParts = append(resultParts, sdk.TextContentPart(intro))
				resultParts = append(resultParts, images...)
			}
		}
	}
	parts := append(resultParts, ownParts...)
	if len(parts) == 0 {
		return out
	}
	if len(parts) == 1 && parts[0].OfText != nil {
		// A plain string is understood by every server, vision or not.
		return append(out, sdk.UserMessage(parts[0].OfText.Text))
	}
	return append(out, sdk.UserMessage(parts))
}

// toolResultContent returns the text for a tool message and the image
// parts that must travel in a separate user message.
func toolResultContent(b provider.Block) (string, []sdk.ChatCompletionContentPartUnionParam) {
	var texts []string
	var images []sdk.ChatCompletionContentPartUnionParam
	for _, r := range b.Result {
		switch r.Kind {
		case provider.BlockText:
			texts = append(texts, r.Text)
		case provider.BlockImage:
			images = append(images, imagePart(r))
		}
	}
	text := strings.Join(texts, "\n")
	if len(images) > 0 {
		note := fmt.Sprintf("[%d image(s) attached in the next user message]", len(images))
		if text == "" {
			text = note
		} else {
			text += "\n" + note
		}
	}
	if b.IsError {
		text = "Error: " + text
	}
	return text, images
}

func imagePart(b provider.Block) sdk.ChatCompletionContentPartUnionParam {
	url := "data:" + b.MediaType + ";base64," + base64.StdEncoding.EncodeToString(b.Data)
	return sdk.ImageContentPart(sdk.ChatCompletionContentPartImageImageURLParam{URL: url})
}
