package chat

import (
	"strings"

	"github.com/magenta-nvim/magenta/pkg/chat/view"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/provider"
)

// foldedText is the state of an entry drawn folded: a model's thinking
// or a compaction summary. Owned by the thread goroutine.
type foldedText struct {
	// text grows by deltas while thinking streams: a builder, not +=.
	text      strings.Builder
	expanded  bool
	streaming bool // thinking still arriving
	heading   bool // thinking that opens a reply carries its heading
	// Compaction only: running while the summary is written, and how
	// many messages it replaced.
	running  bool
	messages int
}

// reasoningFor is what a profile asks of the model's reasoning.
func reasoningFor(p config.Profile) provider.Reasoning {
	r := provider.Reasoning{Effort: p.ReasoningEffort}
	if p.Thinking != nil {
		r.BudgetTokens = p.Thinking.BudgetTokens
	}
	return r
}

// onThinkingDelta streams reasoning into a folded entry per block. The
// reasoning opens the reply, so the text after it carries no heading of
// its own.
func (t *Thread) onThinkingDelta(ev provider.ThinkingDelta) {
	tr := t.turn
	tr.phase, tr.retry = phaseStreaming, ""
	t.dropRetryNote()
	e, ok := tr.thinking[ev.Index]
	if !ok {
		e = t.newEntry(entryThinking)
		e.fold = &foldedText{streaming: true, heading: !tr.anyText}
		t.urgent = t.urgent || !tr.anyText
		tr.anyText = true
		tr.thinking[ev.Index] = e
	}
	e.fold.text.WriteString(ev.Text)
	if e.fold.expanded || strings.Contains(ev.Text, "\n") {
		t.touch(e) // folded, only the line count changes
	}
}

// endThinking marks the stream's thinking finished.
func (t *Thread) endThinking() {
	for _, e := range t.turn.thinking {
		if e.fold.streaming {
			e.fold.streaming = false
			t.touch(e)
		}
	}
}

// toggleFolded expands or collapses a thinking or compaction entry.
func (t *Thread) toggleFolded(id string) {
	for _, e := range t.entries {
		if e.id == id && e.fold != nil {
			e.fold.expanded = !e.fold.expanded
			t.touch(e)
		}
	}
}

// renderFolded draws a thinking or compaction entry.
func (t *Thread) renderFolded(e *entry, version uint64) *view.Section {
	f := e.fold
	if e.kind == entryCompaction {
		return view.RenderCompaction(t.ID, e.id, version, view.Compaction{
			Running: f.running, Messages: f.messages, Summary: f.text.String(), Expanded: f.expanded})
	}
	return view.RenderThinking(t.ID, e.id, version, f.text.String(), f.heading, f.streaming, f.expanded)
}
