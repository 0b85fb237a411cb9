package chat

import (
	"strings"

	"github.com/magenta-nvim/magenta/pkg/chat/provider"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// toolResult is a finished tool call's result.
type toolResult tools.Result

func (r toolResult) summary() string {
	if r.Summary != "" {
		return r.Summary
	}
	return r.Text
}

// block is the tool_result the provider receives.
func (r toolResult) block(toolUseID string) provider.Block {
	text := r.Text
	if strings.TrimSpace(text) == "" {
		text = "(no output)"
	}
	content := []provider.Block{provider.TextBlock(text)}
	for _, img := range r.Images {
		content = append(content, provider.Block{Kind: provider.BlockImage, MediaType: img.MediaType, Data: img.Data})
	}
	return provider.Block{Kind: provider.BlockToolResult, ToolUseID: toolUseID, Result: content, IsError: r.IsError}
}

// startTool runs one tool call on a worker goroutine under the turn's
// context. The registry turns panics into error results.
func (t *Thread) startTool(tr *turn, e *entry, b provider.Block) {
	call := tools.Call{ID: b.ToolUseID, ThreadID: t.ID, Input: b.Input, Env: t.deps.Env, Thread: t}
	name := b.ToolName
	t.workers.Add(1)
	go func() {
		defer t.workers.Done()
		res := t.deps.Tools.Run(tr.ctx, name, call)
		t.enqueue(msgToolDone{turn: tr.id, id: e.id, res: toolResult(res)})
	}()
}

func toolSpecs(r *tools.Registry) []provider.ToolSpec {
	specs := r.Specs()
	out := make([]provider.ToolSpec, len(specs))
	for i, s := range specs {
		out[i] = provider.ToolSpec{Name: s.Name, Description: s.Description, InputSchema: s.InputSchema}
	}
	return out
}
