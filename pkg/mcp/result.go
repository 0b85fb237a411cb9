package mcp

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/magenta-nvim/magenta/pkg/imagefile"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// callResult is MCP's CallToolResult as the gateway passes it on.
type callResult struct {
	Content           []content `json:"content"`
	StructuredContent any       `json:"structuredContent,omitempty"`
	IsError           bool      `json:"isError,omitempty"`
}

// content is one content block; Type says which fields it has.
type content struct {
	Type        string `json:"type"` // text, image, audio, resource_link, resource
	Text        string `json:"text,omitempty"`
	Data        []byte `json:"data,omitempty"` // base64 on the wire
	MIMEType    string `json:"mimeType,omitempty"`
	URI         string `json:"uri,omitempty"`
	Name        string `json:"name,omitempty"`
	Description string `json:"description,omitempty"`
	Resource    *struct {
		URI      string `json:"uri"`
		MIMEType string `json:"mimeType,omitempty"`
		Text     string `json:"text,omitempty"`
		Blob     []byte `json:"blob,omitempty"`
	} `json:"resource,omitempty"`
}

// result maps a tool result: text as text, images as images, resource
// links and embedded resources as text, structured content as JSON when
// there is no text; isError becomes an error result.
func (t *tool) result(call tools.Call, raw json.RawMessage) tools.Result {
	var res callResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return tools.Errorf(fmt.Sprintf("%s: the server's result could not be read: %v", t.spec.Name, err))
	}
	var b strings.Builder
	var out tools.Result
	for _, c := range res.Content {
		switch c.Type {
		case "text":
			line(&b, c.Text)
		case "image":
			// Checked and scaled like any image (format by content, the
			// providers' bounds): one the model could not take would fail
			// the whole request.
			img, err := imagefile.Prepare(c.Data)
			if err != nil {
				line(&b, fmt.Sprintf("(an image the server returned (%s, %d bytes) was not passed on: %v)", c.MIMEType, len(c.Data), err))
				continue
			}
			out.Images = append(out.Images, tools.Image{MediaType: img.MediaType, Data: img.Data})
		case "resource_link":
			line(&b, fmt.Sprintf("resource: %s (%s) %s", c.URI, c.Name, c.Description))
		case "resource":
			if r := c.Resource; r != nil {
				if r.Text != "" {
					line(&b, fmt.Sprintf("resource %s:\n%s", r.URI, r.Text))
				} else {
					line(&b, fmt.Sprintf("resource %s (%s, %d bytes)", r.URI, r.MIMEType, len(r.Blob)))
				}
			}
		case "audio":
			line(&b, fmt.Sprintf("(audio, %s, %d bytes, not shown)", c.MIMEType, len(c.Data)))
		}
	}
	if res.StructuredContent != nil && b.Len() == 0 {
		if data, err := json.Marshal(res.StructuredContent); err == nil {
			line(&b, string(data))
		}
	}
	out.Text, out.IsError = b.String(), res.IsError
	out.Summary = resultSummary(out.Text, len(out.Images))
	if len(out.Text) > ResultCharBudget {
		out.Text = t.abbreviated(call, out.Text)
	}
	return out
}

// summaryRunes bounds the one line of a result the chat shows.
const summaryRunes = 80

// resultSummary is what the chat's tool line shows of a result (the
// tool's name is already on the line): its first non-blank line, cut to
// summaryRunes, with the count of the others; "no output" for nothing.
func resultSummary(text string, images int) string {
	var first string
	lines := 0
	for l := range strings.Lines(text) {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if lines == 0 {
			first = l
		}
		lines++
	}
	if r := []rune(first); len(r) > summaryRunes {
		first = string(r[:summaryRunes-1]) + "…"
	}
	switch {
	case lines == 0 && images == 0:
		return "no output"
	case lines == 0:
		return count(images, "image", "images")
	case lines > 1:
		first += " (+" + count(lines-1, "line", "lines") + ")"
	}
	if images > 0 {
		first += ", " + count(images, "image", "images")
	}
	return first
}

func line(b *strings.Builder, s string) {
	if b.Len() > 0 {
		b.WriteByte('\n')
	}
	b.WriteString(s)
}

// abbreviated keeps the head of a long text and saves the whole as an
// artifact the model can read with get_file.
func (t *tool) abbreviated(call tools.Call, text string) string {
	head := text[:ResultCharBudget]
	note := fmt.Sprintf("\n… (%d of %d chars shown", ResultCharBudget, len(text))
	if call.Env != nil && call.Env.Artifacts != nil {
		if path, err := call.Env.Artifacts.Save(call.ThreadID, call.ID, "mcp-result.txt", []byte(text)); err == nil {
			note += "; the full result is in " + path + ", read it with get_file"
		}
	}
	return head + note + ")"
}

// count is n and the word that goes with it ("1 line", "2 lines").
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
