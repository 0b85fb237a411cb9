package view

import (
	"fmt"
	"strings"
)

// Folded text (a model's thinking, a compaction summary) shows at most
// this many lines when expanded: the first FoldHeadLines and the last
// FoldTailLines around a marker, as a long reply does.
const foldedTextMaxLines = FoldAfterLines

// RenderThinking draws a model's reasoning as one folded line, or with
// its text under it when expanded; = or <CR> on it toggles. heading puts
// the reply's "## assistant" heading above it (thinking opens a reply).
func RenderThinking(threadID, id string, version uint64, text string, heading, streaming, expanded bool) *Section {
	n := countLines(text)
	word := "thinking"
	if streaming {
		word = "thinking…"
	}
	var lines []Line
	if heading {
		lines = append(lines, whole("## assistant", HlAssistant))
	}
	start := len(lines)
	lines = append(lines, foldHead(word, fmt.Sprintf("%d %s", n, plural(n, "line")), expanded))
	if expanded {
		lines = appendFoldedText(lines, text)
	}
	return foldSection(threadID, id, version, lines, start)
}

// Compaction is a compaction marker as the chat shows it.
type Compaction struct {
	// Running: the summary is being written.
	Running bool
	// Messages is how many messages the summary replaced.
	Messages int
	Summary  string
	Expanded bool
}

// RenderCompaction draws where the conversation was compacted: one line
// while the summary is written, then a marker whose summary = expands.
// Everything above it stays on screen; the model sees only the summary.
func RenderCompaction(threadID, id string, version uint64, c Compaction) *Section {
	if c.Running {
		return &Section{ID: id, Version: version, Lines: []Line{
			whole(fmt.Sprintf("⟳ compacting the conversation (%d %s) into a summary…", c.Messages, plural(c.Messages, "message")), HlMeta), {}}}
	}
	what := fmt.Sprintf("%d %s summarized; the model sees the summary from here on", c.Messages, plural(c.Messages, "message"))
	lines := []Line{foldHead("context compacted", what, c.Expanded)}
	if c.Expanded {
		lines = appendFoldedText(lines, c.Summary)
	}
	return foldSection(threadID, id, version, lines, 0)
}

// foldHead is the line that stands for folded text: ▸ when folded, ▾
// when expanded.
func foldHead(title, detail string, expanded bool) Line {
	if expanded {
		return whole(fmt.Sprintf("▾ %s (%s)", title, detail), HlMeta)
	}
	return whole(fmt.Sprintf("▸ %s (%s) · = expands", title, detail), HlMeta)
}

// foldSection ends lines with a blank line and binds toggle and activate
// on lines[start:] to the entry's toggle.
func foldSection(threadID, id string, version uint64, lines []Line, start int) *Section {
	end := len(lines)
	toggle := Action{Target: threadID, Kind: ActionToggleEntry, Arg: id}
	return &Section{ID: id, Version: version, Lines: append(lines, Line{}), Bindings: []Binding{
		{Start: start, End: end, Key: KeyToggle, Action: toggle},
		{Start: start, End: end, Key: KeyActivate, Action: toggle},
	}}
}

// appendFoldedText draws text indented, long lines cut, and more than
// foldedTextMaxLines lines shown as head and tail around a marker.
func appendFoldedText(lines []Line, text string) []Line {
	all := strings.Split(strings.TrimRight(text, "\n"), "\n")
	shown, rest := all, []string(nil)
	if len(all) > foldedTextMaxLines {
		shown, rest = all[:FoldHeadLines], all[len(all)-FoldTailLines:]
	}
	for _, l := range shown {
		lines = append(lines, whole("  "+cutLine(strings.TrimSuffix(l, "\r")), HlMeta))
	}
	if rest != nil {
		lines = append(lines, whole("  [… "+Count(len(all)-len(shown)-len(rest), "line", "lines")+" not shown]", HlMeta))
		for _, l := range rest {
			lines = append(lines, whole("  "+cutLine(strings.TrimSuffix(l, "\r")), HlMeta))
		}
	}
	return lines
}

// countLines is the number of lines text shows (0 for none).
func countLines(text string) int {
	text = strings.TrimRight(text, "\n")
	if text == "" {
		return 0
	}
	return strings.Count(text, "\n") + 1
}
