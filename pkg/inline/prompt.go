package inline

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/magenta-nvim/magenta/pkg/provider"
)

// ToolName is the tool the model answers with.
const ToolName = "replace_selection"

// ContextLines is how many lines around the selection Lua sends (each
// side); the model sees them to match style and indentation.
const ContextLines = 50

const systemPrompt = `You rewrite a selection of lines in a file inside the user's editor.
You get the file's path, up to ` + "%d" + ` lines before and after the selection for context, the selected lines, and the user's instruction.
Answer by calling the ` + ToolName + ` tool exactly once with the complete new text of the selected lines: it replaces them as a whole.
Keep the indentation and style of the surrounding code. Do not repeat the context lines, do not wrap the text in Markdown fences, and do not explain.`

// SystemPrompt is the system prompt of every inline edit.
var SystemPrompt = fmt.Sprintf(systemPrompt, ContextLines)

// toolInput is the input of the replace_selection tool.
type toolInput struct {
	Text string `json:"text"`
}

// toolSpec is the one tool an inline edit offers.
var toolSpec = provider.ToolSpec{
	Name:        ToolName,
	Description: "Replace the selected lines with text (the complete new lines, without fences).",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string","description":"the new text of the selected lines"}},"required":["text"]}`),
}

// userMessage is what the model is asked.
func userMessage(r Request) string {
	var b strings.Builder
	fmt.Fprintf(&b, "File: %s", r.Path)
	if r.Filetype != "" {
		fmt.Fprintf(&b, " (filetype %s)", r.Filetype)
	}
	fmt.Fprintf(&b, "\nSelected lines: %d-%d\n", r.StartLine, r.EndLine)
	fence := fenceFor(r.Before + r.Selection + r.After)
	if r.Before != "" {
		fmt.Fprintf(&b, "\nBefore the selection:\n%s\n%s\n%s\n", fence, r.Before, fence)
	}
	fmt.Fprintf(&b, "\nThe selection:\n%s\n%s\n%s\n", fence, r.Selection, fence)
	if r.After != "" {
		fmt.Fprintf(&b, "\nAfter the selection:\n%s\n%s\n%s\n", fence, r.After, fence)
	}
	fmt.Fprintf(&b, "\nInstruction: %s", r.Prompt)
	return b.String()
}

// fenceFor returns a backtick fence longer than any run of backticks in s.
func fenceFor(s string) string {
	longest, run := 0, 0
	for _, c := range s {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}
