package chat

import (
	"fmt"
	"strings"

	"github.com/magenta-nvim/magenta/pkg/chat/view"
	"github.com/magenta-nvim/magenta/pkg/imagefile"
	"github.com/magenta-nvim/magenta/pkg/provider"
)

// compactionRequest is the user message of a compaction request: the
// conversation as a plain transcript (tool calls and results as text, so
// the request needs no tools and works with any profile), at most limit
// bytes, then the request for the summary.
func compactionRequest(history []provider.Message, limit int) string {
	var b strings.Builder
	b.WriteString("Here is the conversation to summarize:\n\n<conversation>\n")
	b.WriteString(transcript(history, limit))
	b.WriteString("</conversation>\n\nWrite the summary now.")
	return b.String()
}

// transcript writes the messages as text. Over limit bytes, it keeps the
// first message (the task, usually) and the newest part, and says what
// was left out between them.
func transcript(history []provider.Message, limit int) string {
	parts := make([]string, len(history))
	total := 0
	for i, m := range history {
		parts[i] = messageText(m)
		total += len(parts[i])
	}
	if total <= limit || len(parts) < 2 {
		return cutMiddle(strings.Join(parts, ""), limit)
	}
	first := cutMiddle(parts[0], limit/4)
	budget := limit - len(first)
	start := len(parts)
	for start > 1 && budget-len(parts[start-1]) >= 0 {
		start--
		budget -= len(parts[start])
	}
	var b strings.Builder
	b.WriteString(first)
	if start > 1 {
		fmt.Fprintf(&b, "[… %s left out: the conversation was too long to send whole …]\n\n", view.Count(start-1, "earlier message", "earlier messages"))
	}
	if start == len(parts) {
		// Even the newest message is over the budget: keep its end.
		b.WriteString(cutMiddle(parts[len(parts)-1], max(budget, limit/2)))
	}
	for _, p := range parts[start:] {
		b.WriteString(p)
	}
	return b.String()
}

// messageText is one message of the transcript. Thinking is left out:
// its conclusions are in the text and tool calls that follow it.
func messageText(m provider.Message) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%s]\n", m.Role)
	for _, blk := range m.Content {
		switch blk.Kind {
		case provider.BlockText:
			b.WriteString(blk.Text)
			b.WriteString("\n")
		case provider.BlockImage:
			fmt.Fprintf(&b, "%s\n", imageInTranscript(blk))
		case provider.BlockToolUse:
			fmt.Fprintf(&b, "[tool call %s %s: %s]\n", blk.ToolName, blk.ToolUseID, cutMiddle(string(blk.Input), maxToolInputBytes))
		case provider.BlockToolResult:
			status := "result"
			if blk.IsError {
				status = "error"
			}
			var r strings.Builder
			for _, rb := range blk.Result {
				switch rb.Kind {
				case provider.BlockText:
					r.WriteString(rb.Text)
				case provider.BlockImage:
					r.WriteString(imageInTranscript(rb))
				}
			}
			fmt.Fprintf(&b, "[tool %s %s]\n%s\n", status, blk.ToolUseID, cutMiddle(r.String(), maxToolResultBytes))
		}
	}
	b.WriteString("\n")
	return b.String()
}

// cutMiddle keeps the head and tail of s within about n bytes, on UTF-8
// boundaries, with a marker saying how much was cut.
func cutMiddle(s string, n int) string {
	if len(s) <= n || n <= 0 {
		return s
	}
	head, tail := runeBoundary(s, n*3/4), runeBoundary(s, len(s)-n/4)
	return fmt.Sprintf("%s\n[… %d bytes cut …]\n%s", s[:head], tail-head, s[tail:])
}

// runeBoundary moves i back to the start of the rune it falls in.
func runeBoundary(s string, i int) int {
	for i > 0 && i < len(s) && s[i]&0xC0 == 0x80 {
		i--
	}
	return i
}

// imageInTranscript stands for an image in the transcript: compaction
// keeps no image (the summary replaces them with what it says of them;
// :help magenta-images), so the summarizer is told what there was.
func imageInTranscript(b provider.Block) string {
	return fmt.Sprintf("[an image: %s; images are not kept after the summary]", imagefile.Describe(b.MediaType, b.Data))
}
