package chat

import (
	"log/slog"
	"strings"
	"time"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/chat/view"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/threadstore"
)

// InterruptedResult is the tool result a saved thread gets for each tool
// call that was still running when its editor closed, so the history the
// provider sees is consistent again.
const InterruptedResult = "interrupted: the editor closed before this tool call finished"

// threadLog is a thread's saved form: the writer of its log, once the
// first message made one. Owned by the thread goroutine.
type threadLog struct {
	w *threadstore.Writer
	// readOnly says why this thread is shown but not continued (another
	// editor writes it); "" when it may be continued.
	readOnly string
	// failed stops saving after an error was shown once.
	failed  bool
	title   string
	profile string
	usage   view.Usage
	// savedParent is the parent of a reopened sub-agent thread (its live
	// link is gone, the list still draws it under the parent).
	savedParent string
	// messages counts the messages appended; active is when the last one
	// was (the thread list shows both).
	messages int
	active   time.Time
	// users are the user's messages among them, in order (rewind.go).
	users []userPoint
}

// observeForLog saves the thread as its events say it changed: the log
// is the thread's first observer (attached after a restored thread's
// rebuild, so nothing replayed is saved twice).
func observeForLog(t *Thread, ev ThreadEvent) {
	switch ev := ev.(type) {
	case MessageAppended:
		t.saveMessage(ev.Message, ev.Typed)
	case HistoryCompacted:
		t.saveCompaction(ev.Summary, ev.Replaced, ev.History)
	case TurnUsage:
		t.saveTurnUsage(ev.Usage, ev.Requests)
	case MetaChanged:
		t.saveMeta(ev)
	case TodosChanged:
		t.saveTodos(ev.Items)
	}
}

// typedAt marks the block at index as typed, with att's labels.
func typedAt(index int, att []Attachment) threadstore.Typed {
	labels := make([]string, len(att))
	for i, a := range att {
		labels[i] = a.Label
	}
	return threadstore.Typed{Block: index, Attached: labels}
}

// saveMessage records a message appended to the history. The log is
// made with the first message, so threads never used leave no file.
func (t *Thread) saveMessage(m provider.Message, typed []threadstore.Typed) {
	if len(typed) > 0 {
		t.log.users = append(t.log.users, userPoint{record: t.log.messages, text: typedText(m, typed)})
	}
	t.log.messages++
	t.log.active = time.Now()
	if !t.openLog() {
		return
	}
	d := threadstore.Display{Typed: typed, Tools: t.toolDisplays(m)}
	if len(d.Typed) == 1 && d.Typed[0].Block == 0 && len(d.Typed[0].Attached) == 0 && len(m.Content) == 1 {
		d.Typed = nil // the common case: the message is what was typed
	}
	t.saveErr(t.log.w.Message(m, d))
}

// saveCompaction records that compaction replaced the history with
// history (the summary first), so a reopened thread continues from the
// summary, not from the history it replaced.
func (t *Thread) saveCompaction(summary string, replaced int, history []provider.Message) {
	if !t.openLog() {
		return
	}
	t.saveErr(t.log.w.Compaction(threadstore.Compaction{Summary: summary, Replaced: replaced, History: history}))
}

// toolDisplays is what the chat shows of m's tool results beyond their
// text (taken from their entries, which are finished by now).
func (t *Thread) toolDisplays(m provider.Message) map[string]threadstore.ToolDisplay {
	var out map[string]threadstore.ToolDisplay
	for _, b := range m.Content {
		if b.Kind != provider.BlockToolResult {
			continue
		}
		for i := len(t.entries) - 1; i >= 0; i-- {
			e := t.entries[i]
			if e.kind != entryTool || e.toolID != b.ToolUseID {
				continue
			}
			d := threadstore.ToolDisplay{Summary: e.tool.Summary, LogPath: e.tool.LogPath, Path: e.tool.DiffPath, Line: e.tool.DiffLine}
			if e.tool.Diff != "" {
				head, n := view.DiffHead(e.tool.Diff)
				d.Diff = head
				if head != e.tool.Diff {
					d.DiffLines = n
				}
			}
			if d != (threadstore.ToolDisplay{}) {
				if out == nil {
					out = map[string]threadstore.ToolDisplay{}
				}
				out[b.ToolUseID] = d
			}
			break
		}
	}
	return out
}

// openLog makes the thread's log when there is a store and none yet.
func (t *Thread) openLog() bool {
	if t.log.w != nil {
		return true
	}
	if t.deps.Store == nil || t.log.failed || t.log.readOnly != "" {
		return false
	}
	h := threadstore.Header{ID: t.ID, ParentID: t.listParent(), Profile: t.profile.Name, Title: t.title, Env: envConfig(t.deps.Env)}
	w, err := t.deps.Store.Create(h)
	if err != nil {
		t.saveErr(err)
		return false
	}
	t.log.w, t.log.title, t.log.profile = w, t.title, t.profile.Name
	return true
}

// saveMeta records what of m differs from the log's: a changed title,
// profile or usage (MetaChanged, and once more when the log closes).
func (t *Thread) saveMeta(m MetaChanged) {
	if t.log.w == nil {
		return
	}
	if m.Title != t.log.title {
		t.log.title = m.Title
		t.saveErr(t.log.w.Title(m.Title))
	}
	if m.Profile != t.log.profile {
		t.log.profile = m.Profile
		t.saveErr(t.log.w.Profile(m.Profile))
	}
	if m.Usage != t.log.usage {
		t.log.usage = m.Usage
		t.saveErr(t.log.w.Usage(storedUsage(m.Usage)))
	}
}

// saveTurnUsage records the usage line drawn after a turn, so a reopened
// thread draws it again in its place.
func (t *Thread) saveTurnUsage(u view.Usage, requests int) {
	if !t.openLog() {
		return
	}
	t.saveErr(t.log.w.TurnUsage(threadstore.TurnUsage{Usage: storedUsage(u), Requests: requests}))
}

// storedUsage and shownUsage convert usage between its saved and its
// drawn form.
func storedUsage(u view.Usage) threadstore.Usage {
	return threadstore.Usage{Input: u.Input, Output: u.Output, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite, Cost: u.Cost, Priced: u.Priced}
}

func shownUsage(u threadstore.Usage) view.Usage {
	return view.Usage{Input: u.Input, Output: u.Output, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite, Cost: u.Cost, Priced: u.Priced}
}

// saveErr shows the first failure to save in the thread; the thread goes
// on unsaved rather than failing the conversation.
func (t *Thread) saveErr(err error) {
	if err == nil || t.log.failed {
		return
	}
	t.log.failed = true
	slog.Warn("saving a thread failed", "thread", t.ID, "err", err)
	t.notice(view.NoticeWarning, "this thread is no longer saved: "+err.Error())
}

// closeLog releases the thread's log (and its lock).
func (t *Thread) closeLog() {
	if t.log.w != nil {
		t.saveMeta(t.meta())
		_ = t.log.w.Close()
		t.log.w = nil
	}
}

// refuseReadOnly tells the user a read-only thread cannot be continued,
// and gives the refused message back to the input buffer (text; "" for
// none) so nothing typed is lost.
func (t *Thread) refuseReadOnly(text string) bool {
	if t.log.readOnly == "" {
		return false
	}
	t.notice(view.NoticeError, t.log.readOnly+" Start another thread with :Magenta new-thread, or continue this one in that editor; your message is back in the input.")
	if r, ok := t.deps.Display.(InputRestorer); ok && text != "" {
		r.RestoreInput(text)
	}
	return true
}

// listParent is the parent the thread list draws the thread under.
func (t *Thread) listParent() string {
	if id := t.parentID(); id != "" {
		return id
	}
	return t.log.savedParent
}

// envConfig is the saved form of where a thread works, read from the
// name the environment gives itself: "docker:<container>",
// "docker:<context>/<container>" (neither name can hold a "/"),
// "ssh:<host>". A local thread works in the store's workspace.
func envConfig(env *capabilities.Environment) threadstore.Env {
	if env == nil {
		return threadstore.Env{Type: "local"}
	}
	if name, ok := strings.CutPrefix(env.Name, "docker:"); ok {
		dockerContext, container, found := strings.Cut(name, "/")
		if !found {
			dockerContext, container = "", name
		}
		return threadstore.Env{Type: "docker", Context: dockerContext, Container: container, Cwd: env.Cwd}
	}
	if host, ok := strings.CutPrefix(env.Name, "ssh:"); ok {
		return threadstore.Env{Type: "ssh", Host: host, Cwd: env.Cwd}
	}
	return threadstore.Env{Type: "local"}
}
