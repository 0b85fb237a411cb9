package anthropic

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/packages/param"

	"github.com/magenta-nvim/magenta/pkg/provider"
)

// defaultMaxTokens is max_tokens when the request leaves it at 0.
const defaultMaxTokens = 8192

// buildParams translates a provider request into the SDK's parameters.
// A request that cannot be expressed fails with an ErrInvalid *provider.Error.
func buildParams(req provider.Request) (sdk.MessageNewParams, error) {
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = defaultMaxTokens
	}
	p := sdk.MessageNewParams{
		Model:     sdk.Model(req.Model),
		MaxTokens: int64(maxTokens),
		Messages:  make([]sdk.MessageParam, 0, len(req.Messages)),
	}
	if req.System != "" {
		p.System = []sdk.TextBlockParam{{Text: req.System}}
	}
	setThinking(&p, req.Reasoning, req.MaxTokens)
	for i, m := range req.Messages {
		mp, err := messageParam(m)
		if err != nil {
			return p, invalid(fmt.Sprintf("message %d: %v", i, err))
		}
		p.Messages = append(p.Messages, mp)
	}
	for _, t := range req.Tools {
		tp, err := toolParam(t)
		if err != nil {
			return p, invalid(fmt.Sprintf("tool %q: %v", t.Name, err))
		}
		p.Tools = append(p.Tools, tp)
	}
	if req.ServerSearch != nil {
		p.Tools = append(p.Tools, serverSearchTool(req.ServerSearch)) // websearch.go
	}
	markCacheBreakpoints(&p)
	return p, nil
}

func invalid(msg string) *provider.Error {
	return &provider.Error{Kind: provider.ErrInvalid, Message: "cannot build the request: " + msg}
}

func messageParam(m provider.Message) (sdk.MessageParam, error) {
	var role sdk.MessageParamRole
	switch m.Role {
	case provider.RoleUser:
		role = sdk.MessageParamRoleUser
	case provider.RoleAssistant:
		role = sdk.MessageParamRoleAssistant
	default:
		return sdk.MessageParam{}, fmt.Errorf("unknown role %q", m.Role)
	}
	content := make([]sdk.ContentBlockParamUnion, 0, len(m.Content))
	for j, b := range m.Content {
		cb, keep, err := blockParam(b)
		if err != nil {
			return sdk.MessageParam{}, fmt.Errorf("block %d: %w", j, err)
		}
		if keep {
			content = append(content, cb)
		}
	}
	return sdk.MessageParam{Role: role, Content: content}, nil
}

// blockParam translates one block. keep is false for a block that is
// dropped: an empty text block or an unsigned thinking block, which the
// API rejects.
func blockParam(b provider.Block) (cb sdk.ContentBlockParamUnion, keep bool, err error) {
	switch b.Kind {
	case provider.BlockText:
		if b.Text == "" {
			return cb, false, nil
		}
		if cb, ok := citedTextParam(b); ok {
			return cb, true, nil // websearch.go
		}
		return sdk.NewTextBlock(b.Text), true, nil
	case provider.BlockServerToolUse, provider.BlockServerToolResult:
		cb, keep := rawBlockParam(b.Raw)
		return cb, keep, nil
	case provider.BlockToolUse:
		input, err := inputObject(b.Input)
		if err != nil {
			return cb, false, err
		}
		return sdk.NewToolUseBlock(b.ToolUseID, input, b.ToolName), true, nil
	case provider.BlockToolResult:
		tr := sdk.ToolResultBlockParam{ToolUseID: b.ToolUseID}
		if b.IsError {
			tr.IsError = sdk.Bool(true)
		}
		for _, r := range b.Result {
			switch r.Kind {
			case provider.BlockText:
				if r.Text != "" {
					tr.Content = append(tr.Content, sdk.ToolResultBlockParamContentUnion{OfText: &sdk.TextBlockParam{Text: r.Text}})
				}
			case provider.BlockImage:
				tr.Content = append(tr.Content, sdk.ToolResultBlockParamContentUnion{OfImage: imageParam(r)})
			default:
				return cb, false, fmt.Errorf("a tool result holds a %q block; only text and image are allowed", r.Kind)
			}
		}
		return sdk.ContentBlockParamUnion{OfToolResult: &tr}, true, nil
	case provider.BlockImage:
		return sdk.ContentBlockParamUnion{OfImage: imageParam(b)}, true, nil
	case provider.BlockThinking:
		// Without its signature (a stream cut short) the API rejects
		// the block; thinking may be left out of earlier turns.
		if b.Signature == "" {
			return cb, false, nil
		}
		return sdk.NewThinkingBlock(b.Signature, b.Thinking), true, nil
	case provider.BlockRedactedThinking:
		if b.RedactedData == "" {
			return cb, false, nil
		}
		return sdk.NewRedactedThinkingBlock(b.RedactedData), true, nil
	default:
		return cb, false, fmt.Errorf("unknown block kind %q", b.Kind)
	}
}

func imageParam(b provider.Block) *sdk.ImageBlockParam {
	return &sdk.ImageBlockParam{Source: sdk.ImageBlockParamSourceUnion{OfBase64: &sdk.Base64ImageSourceParam{
		Data:      base64.StdEncoding.EncodeToString(b.Data),
		MediaType: sdk.Base64ImageSourceMediaType(b.MediaType),
	}}}
}

// inputObject returns a tool call's input as raw JSON: "{}" when it is
// empty, an error when it is not a JSON object.
func inputObject(raw json.RawMessage) (json.RawMessage, error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || string(t) == "null" {
		return json.RawMessage("{}"), nil
	}
	if t[0] != '{' || !json.Valid(t) {
		return nil, fmt.Errorf("tool_use input is not a JSON object: %.80s", t)
	}
	return json.RawMessage(t), nil
}

func toolParam(t provider.ToolSpec) (sdk.ToolUnionParam, error) {
	tp := sdk.ToolParam{Name: t.Name}
	if t.Description != "" {
		tp.Description = sdk.String(t.Description)
	}
	schema := bytes.TrimSpace(t.InputSchema)
	if len(schema) == 0 {
		schema = []byte(`{"type":"object","properties":{}}`)
	}
	if schema[0] != '{' || !json.Valid(schema) {
		return sdk.ToolUnionParam{}, fmt.Errorf("input schema is not a JSON object")
	}
	// The schema is sent verbatim, not re-encoded through the SDK's
	// typed fields.
	tp.InputSchema = param.Override[sdk.ToolInputSchemaParam](json.RawMessage(schema))
	return sdk.ToolUnionParam{OfTool: &tp}, nil
}
