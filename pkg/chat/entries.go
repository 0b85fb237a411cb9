package chat

import (
	"strconv"

	"github.com/magenta-nvim/magenta/pkg/chat/view"
)

type entryKind int

const (
	entryUser entryKind = iota
	entryAssistant
	entryTool
	entryNotice
)

// entry is one item of the thread as the user sees it. It is owned by the
// thread goroutine; its rendered section is cached until it changes.
type entry struct {
	id      string
	kind    entryKind
	section *view.Section

	text   string // user, assistant, notice
	queued bool   // user: waiting for the running turn to end
	first  bool   // assistant: opens a reply
	level  view.NoticeLevel
	tool   view.ToolCall
	toolID string // the provider's tool-use id
}

func (t *Thread) newEntry(kind entryKind) *entry {
	t.entrySeq++
	e := &entry{id: "e" + strconv.Itoa(t.entrySeq), kind: kind}
	t.entries = append(t.entries, e)
	t.touch(e)
	return e
}

// touch marks e changed so it is rendered again.
func (t *Thread) touch(e *entry) {
	e.section = nil
	t.dirty = true
}

func (t *Thread) notice(level view.NoticeLevel, text string) {
	e := t.newEntry(entryNotice)
	e.level, e.text = level, text
}

func (t *Thread) nextVersion() uint64 {
	t.versionSeq++
	return t.versionSeq
}

func (t *Thread) render(e *entry) *view.Section {
	if e.section != nil {
		return e.section
	}
	v := t.nextVersion()
	switch e.kind {
	case entryUser:
		e.section = view.RenderUser(e.id, v, e.text, e.queued)
	case entryAssistant:
		e.section = view.RenderAssistantText(e.id, v, e.text, e.first)
	case entryTool:
		e.section = view.RenderToolCall(t.ID, e.id, v, e.tool)
	default:
		e.section = view.RenderNotice(e.id, v, e.level, e.text)
	}
	return e.section
}

// frame builds the current frame; only changed entries are rendered.
func (t *Thread) frame() *view.Frame {
	header := view.Header{Title: t.title, Profile: t.profile.Name, Provider: t.profile.Provider, Model: t.profile.Model}
	if header != t.header.value || t.header.section == nil {
		t.header.value = header
		t.header.section = view.RenderHeader("header", t.nextVersion(), header)
	}
	status := t.statusText()
	if status != t.status.value || t.status.section == nil {
		t.status.value = status
		t.status.section = view.RenderStatus("status", t.nextVersion(), status)
	}
	sections := make([]*view.Section, 0, len(t.entries)+2)
	sections = append(sections, t.header.section)
	for _, e := range t.entries {
		sections = append(sections, t.render(e))
	}
	sections = append(sections, t.status.section)
	return &view.Frame{Sections: sections}
}

type cachedSection[T comparable] struct {
	value   T
	section *view.Section
}
