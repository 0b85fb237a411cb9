package chat

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/chat/view"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

type entryKind int

const (
	entryUser entryKind = iota
	entryAssistant
	entryTool
	entryNotice
	entryThinking   // a model's reasoning, folded (thinking.go)
	entryCompaction // where the history was compacted (compaction.go)
)

// entry is one item of the thread as the user sees it. It is owned by the
// thread goroutine; its rendered section is cached until it changes.
type entry struct {
	id    string
	index int // position in Thread.entries
	kind  entryKind
	// The rendered sections, nil when stale. An assistant reply renders
	// as two: its heading and finished lines (head), and the line being
	// streamed (tail), so a delta re-renders one line, not the reply.
	head, tail *view.Section

	text  string   // user, notice
	lines []string // assistant: finished lines (append-only)
	// assistant: the line being streamed. A builder, because a reply can
	// stream megabytes without a newline and += would copy it per delta.
	last strings.Builder
	// assistant: the file holding the whole block once it was saved,
	// because the display folds it (see view.FoldAfterLines), and whether
	// the block has ended.
	fullText view.FullText
	queued   bool         // user: waiting for the running turn to end (queue)
	auto     bool         // user: not typed (a Stop hook's feedback): no prompt check
	attached []Attachment // user: what the message's @-mentions expanded to
	first    bool         // assistant: opens a reply
	level    view.NoticeLevel
	tool     view.ToolCall
	toolID   string // the provider's tool-use id
	// A running tool call: its own cancel (terminate), its live status,
	// when it started, and the description its tool gave.
	cancel  context.CancelFunc
	live    *tools.Live
	liveSeq uint64
	started time.Time
	desc    string
	// An interactive command's terminal, and how it ended ("exited 0";
	// "" while it runs). Kept after the end, so its window can replay it.
	term     capabilities.Terminal
	termExit string
	// subagents are drawn in a spawn or wait call.
	subagents []*subagent
	// fold: thinking and compaction entries.
	fold *foldedText
}

func (t *Thread) newEntry(kind entryKind) *entry {
	t.entrySeq++
	e := &entry{id: "e" + strconv.Itoa(t.entrySeq), index: len(t.entries), kind: kind}
	t.entries = append(t.entries, e)
	t.touch(e)
	return e
}

// queue adds a message the user sent to t.pending. It is not one of
// t.entries yet: it is drawn below everything, whatever a running turn
// still adds, and joins the entries when it is sent (unqueue) — after
// the turn's last line (its usage), the order in which the model gets it
// and the order a reopened thread draws.
func (t *Thread) queue(m msgSend) {
	t.entrySeq++
	e := &entry{id: "e" + strconv.Itoa(t.entrySeq), kind: entryUser, text: m.text, attached: m.attached, queued: true, auto: m.auto}
	t.pending = append(t.pending, e)
	t.dirty = true
}

// takePending removes and returns every waiting message.
func (t *Thread) takePending() []*entry {
	p := t.pending
	t.pending = nil
	return p
}

// unqueue makes a queued message one of t.entries, at the end.
func (t *Thread) unqueue(e *entry) {
	e.queued, e.index = false, len(t.entries)
	t.entries = append(t.entries, e)
	t.touch(e)
}

// touch marks e changed so it is rendered again. Changing an entry that
// is already settled starts a new settled prefix (see frame).
func (t *Thread) touch(e *entry) {
	e.head, e.tail = nil, nil
	t.dirty = true
	if e.index < t.settledN {
		t.unsettle()
	}
}

// removeEntry takes e out of the thread (a notice that no longer holds).
func (t *Thread) removeEntry(e *entry) {
	if e.index >= len(t.entries) || t.entries[e.index] != e {
		return
	}
	t.entries = append(t.entries[:e.index], t.entries[e.index+1:]...)
	for i := e.index; i < len(t.entries); i++ {
		t.entries[i].index = i
	}
	if t.turn != nil && t.turn.firstEntry > e.index {
		t.turn.firstEntry--
	}
	t.unsettle()
	t.dirty = true
}

// unsettle drops the settled prefix; the next frame builds a new one in
// a new backing array, so frames already published keep theirs.
func (t *Thread) unsettle() {
	t.settled, t.settledEnds, t.settledN = nil, nil, 0
}

func (t *Thread) notice(level view.NoticeLevel, text string) {
	e := t.newEntry(entryNotice)
	e.level, e.text = level, text
}

func (t *Thread) nextVersion() uint64 {
	t.versionSeq++
	return t.versionSeq
}

// appendText adds streamed text to an assistant entry; only the tail is
// re-rendered unless a line was finished.
func (t *Thread) appendText(e *entry, text string) {
	for {
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			break
		}
		e.lines = append(e.lines, e.last.String()+text[:i])
		e.last.Reset()
		text = text[i+1:]
		e.head = nil
	}
	e.last.WriteString(text)
	e.tail = nil
	t.dirty = true
	if e.index < t.settledN {
		t.unsettle()
	}
}

// assistantText is the reply as streamed.
func (e *entry) assistantText() string {
	if len(e.lines) == 0 {
		return e.last.String()
	}
	return strings.Join(e.lines, "\n") + "\n" + e.last.String()
}

// render appends e's sections to out, rendering those that changed.
func (t *Thread) render(out []*view.Section, e *entry) []*view.Section {
	if e.kind == entryAssistant {
		if e.head == nil {
			e.head = view.RenderAssistantHead(e.id+"h", t.nextVersion(), e.lines, e.first, e.fullText)
		}
		if e.tail == nil {
			e.tail = view.RenderAssistantTail(e.id+"t", t.nextVersion(), e.last.String())
		}
		return append(out, e.head, e.tail)
	}
	if e.head == nil {
		v := t.nextVersion()
		switch e.kind {
		case entryUser:
			e.head = view.RenderUser(e.id, v, shownText(e.text, e.attached), e.queued)
		case entryTool:
			e.head = view.RenderToolCall(t.ID, e.id, v, e.tool)
		case entryThinking, entryCompaction:
			e.head = t.renderFolded(e, v)
		default:
			e.head = view.RenderNotice(e.id, v, e.level, e.text)
		}
	}
	return append(out, e.head)
}

// frame builds the current frame; only changed entries are rendered.
//
// Entries before the current turn are settled: their sections go into a
// prefix that successive frames share and that only grows, so a streamed
// delta costs work for the live entries of this turn, not for the whole
// history (view.Diff skips the shared prefix at once).
func (t *Thread) frame() *view.Frame {
	header := t.parentHeader(view.Header{Title: t.title, Profile: t.profile.Name, Provider: t.profile.Provider, Model: t.profile.Model, Usage: t.usage})
	if env := t.deps.Env; env != nil && env.Banner != nil {
		header.Env = env.Banner()
	}
	if t.planning {
		header.Mode = planModeHeader
	}
	if t.deps.MCP != nil {
		header.MCP = t.deps.MCP()
	}
	if header != t.header.value || t.header.section == nil {
		t.header.value = header
		t.header.section = view.RenderHeader("header", t.nextVersion(), header)
		t.unsettle()
	}
	todos := t.todoSection()
	if t.ctxSec.section == nil || t.ctxSec.value != t.contextVersion {
		files := make([]view.ContextFile, len(t.context))
		for i, c := range t.context {
			files[i] = view.ContextFile{Path: c.path, Rel: c.rel}
		}
		t.ctxSec.value = t.contextVersion
		t.ctxSec.section = view.RenderContextFiles("context", t.nextVersion(), t.ID, files)
		t.unsettle()
	}
	status := t.statusText()
	if status != t.status.value || t.status.section == nil {
		t.status.value = status
		t.status.section = view.RenderStatus("status", t.nextVersion(), status)
	}
	liveFrom := len(t.entries)
	if t.turn != nil {
		liveFrom = t.turn.firstEntry
	}
	if t.settled == nil {
		t.settled, t.settledEnds = view.AppendSettled(nil, nil, t.header.section)
		t.settled, t.settledEnds = view.AppendSettled(t.settled, t.settledEnds, todos)
		if t.wsApproval.section != nil {
			t.settled, t.settledEnds = view.AppendSettled(t.settled, t.settledEnds, t.wsApproval.section)
		}
		t.settled, t.settledEnds = view.AppendSettled(t.settled, t.settledEnds, t.ctxSec.section)
	}
	var buf [2]*view.Section
	for ; t.settledN < liveFrom; t.settledN++ {
		for _, sec := range t.render(buf[:0], t.entries[t.settledN]) {
			t.settled, t.settledEnds = view.AppendSettled(t.settled, t.settledEnds, sec)
		}
	}
	live := make([]*view.Section, 0, 2*(len(t.entries)-t.settledN)+len(t.pending)+1)
	for _, e := range t.entries[t.settledN:] {
		live = t.render(live, e)
	}
	for _, e := range t.pending {
		live = t.render(live, e)
	}
	live = append(live, t.status.section)
	return &view.Frame{Settled: t.settled, SettledEnds: t.settledEnds, Sections: live}
}

type cachedSection[T comparable] struct {
	value   T
	section *view.Section
}
