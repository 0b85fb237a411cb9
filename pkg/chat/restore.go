package chat

import (
	"context"
	"strings"
	"time"

	"github.com/magenta-nvim/magenta/pkg/chat/view"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/threadstore"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// RestoreOptions says how a saved thread is reopened.
type RestoreOptions struct {
	// Writer is the thread's log, locked for this thread; nil when
	// ReadOnly says why it cannot be written.
	Writer   *threadstore.Writer
	ReadOnly string
	// Note is shown at the end of the thread (the container is gone).
	Note string
}

// RestoreThread starts a thread from its saved form: the same id,
// history, title and usage, and a display rebuilt from the history, so
// the view cannot tell it from a thread that never stopped. w is the
// Tool calls the saved history left without results get
// InterruptedResult before anything else is sent.
func RestoreThread(parent context.Context, profile config.Profile, deps Deps, saved *threadstore.Thread, o RestoreOptions) *Thread {
	t := newThread(parent, saved.Header.ID, profile, deps)
	t.title = saved.Title
	t.usage = shownUsage(saved.Usage)
	t.log.savedParent = saved.Header.ParentID
	t.rebuild(saved.Messages, saved.Compactions, saved.TurnUsages)
	t.restoreTodos(saved.Todos)
	// Observers after the rebuild: replaying the saved history tells no
	// one (it is saved already).
	t.attachStandardObservers()
	t.titleFromRebuilt() // saved before titles fell back to the first message
	// saved.Title, not t.title: a fallback title is saved at the first
	// publish, so the list shows it from then on.
	t.log.w, t.log.readOnly, t.log.title, t.log.usage = o.Writer, o.ReadOnly, saved.Title, t.usage
	t.log.profile = saved.Header.Profile
	t.log.active = saved.LastActive
	t.finishInterrupted()
	for _, note := range []string{o.ReadOnly, o.Note} {
		if note != "" {
			t.notice(view.NoticeWarning, note)
		}
	}
	go t.run()
	return t
}

// rebuild replays saved messages into the history and the display; at
// each compaction the history becomes the one saved with it, while the
// display keeps what came before, as it did live. Turn usage lines are
// drawn where they were written: after the same messages and compactions.
func (t *Thread) rebuild(msgs []threadstore.Message, compactions []threadstore.SavedCompaction, usages []threadstore.SavedTurnUsage) {
	tools := map[string]*entry{} // tool-use id → its entry
	compacted := 0
	compactUntil := func(n int) {
		for {
			switch {
			case len(usages) > 0 && usages[0].After <= n && usages[0].Compactions <= compacted:
				u := usages[0]
				t.notice(view.NoticeInfo, view.TurnUsageLine(shownUsage(u.Usage), u.Requests))
				usages = usages[1:]
			case len(compactions) > 0 && compactions[0].After <= n:
				t.restoreCompaction(compactions[0].Compaction)
				compactions = compactions[1:]
				compacted++
			default:
				return
			}
		}
	}
	for i, m := range msgs {
		compactUntil(i)
		t.appendMessage(m.Message)
		switch m.Role {
		case provider.RoleUser:
			before := len(t.entries)
			t.rebuildUser(m, tools)
			t.noteRebuiltUser(i, t.entries[before:])
		case provider.RoleAssistant:
			first := true
			for _, b := range m.Content {
				switch b.Kind {
				case provider.BlockText:
					e := t.newEntry(entryAssistant)
					e.first, first = first, false
					t.appendText(e, b.Text)
					t.endText(e) // a folded reply's file is written again
				case provider.BlockToolUse:
					e := t.newEntry(entryTool)
					e.toolID = b.ToolUseID
					e.tool = view.ToolCall{Name: b.ToolName, Input: string(b.Input), Status: view.ToolRunning}
					t.describeTool(e, b)
					tools[b.ToolUseID] = e
					first = false
				}
			}
			t.drawServerSearches(m.Message) // websearch.go
		}
	}
	compactUntil(len(msgs))
	t.log.messages = len(msgs)
}

// titleFromRebuilt gives a reopened thread saved without a title the
// fallback title of its first user message.
func (t *Thread) titleFromRebuilt() {
	if t.title != "" {
		return
	}
	for _, e := range t.entries {
		if e.kind == entryUser {
			t.title = fallbackTitle(e.text)
			return
		}
	}
}

// restoreCompaction shows a saved compaction's marker (its summary
// folded) and makes its history the thread's.
func (t *Thread) restoreCompaction(c threadstore.Compaction) {
	e := t.newEntry(entryCompaction)
	e.fold = &foldedText{messages: c.Replaced}
	e.fold.text.WriteString(c.Summary)
	t.messages = append([]provider.Message(nil), c.History...)
}

func (t *Thread) rebuildUser(m threadstore.Message, tools map[string]*entry) {
	typed := map[int][]string{}
	for _, x := range m.Display.Typed {
		typed[x.Block] = x.Attached
	}
	for i, b := range m.Content {
		switch b.Kind {
		case provider.BlockText:
			att, ok := typed[i]
			if m.Display.Typed != nil && !ok {
				continue // a context file or an attachment sent with the text
			}
			e := t.newEntry(entryUser)
			e.text = b.Text
			for _, label := range att {
				e.attached = append(e.attached, Attachment{Label: label})
			}
		case provider.BlockToolResult:
			if e := tools[b.ToolUseID]; e != nil {
				t.finishTool(e, resultOf(b))
				if d, ok := m.Display.Tools[b.ToolUseID]; ok {
					e.tool.Summary, e.tool.LogPath, e.tool.DiffPath, e.tool.DiffLine = d.Summary, d.LogPath, d.Path, d.Line
					e.tool.Diff, e.tool.DiffLines = d.Diff, d.DiffLines
				}
			}
		}
	}
}

// describeTool gives a tool entry the description its tool makes of
// the input, as a live call has.
func (t *Thread) describeTool(e *entry, b provider.Block) {
	if t.deps.Tools == nil {
		return
	}
	if tool, ok := t.deps.Tools.Tool(b.ToolName); ok {
		if d, ok := tool.(tools.Describer); ok {
			e.desc, e.tool.Detail = d.Describe(b.Input)
			e.tool.Summary = e.desc
		}
	}
}

// resultOf is the display's view of a saved tool result.
func resultOf(b provider.Block) toolResult {
	var text []string
	var images []tools.Image
	for _, r := range b.Result {
		switch r.Kind {
		case provider.BlockText:
			text = append(text, r.Text)
		case provider.BlockImage: // drawn as a line per image (images.go)
			images = append(images, tools.Image{MediaType: r.MediaType, Data: r.Data})
		}
	}
	return toolResult{Text: strings.Join(text, "\n"), Images: images, IsError: b.IsError}
}

// finishInterrupted answers the tool calls of the last reply when the
// saved history ends before their results (the editor closed while they
// ran), and saves the answer.
func (t *Thread) finishInterrupted() {
	n := len(t.messages)
	if n == 0 || t.messages[n-1].Role != provider.RoleAssistant {
		return
	}
	uses := toolUses(t.messages[n-1])
	if len(uses) == 0 {
		return
	}
	blocks := make([]provider.Block, len(uses))
	res := toolResult{Text: InterruptedResult, IsError: true}
	for i, b := range uses {
		blocks[i] = res.block(b.ToolUseID)
		for _, e := range t.entries {
			if e.kind == entryTool && e.toolID == b.ToolUseID {
				t.finishTool(e, res)
			}
		}
	}
	t.appendMessage(provider.Message{Role: provider.RoleUser, Content: blocks})
	t.log.active = time.Now()
}
