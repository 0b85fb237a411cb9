package chat

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"

	"github.com/magenta-nvim/magenta/pkg/chat/view"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/provider"
)

// compactionPrompt is the system prompt of a compaction request.
//
//go:embed compact.md
var compactionPrompt string

// SummaryMarker opens the user message that holds a compaction summary,
// so the model (and a reader of a saved thread) knows what it is.
const SummaryMarker = "[magenta] This conversation was compacted to fit the model's context window. " +
	"The summary below replaces everything before this point; the context files follow as they are now."

// Limits of the transcript a compaction request sends: a tool call's
// input and result are cut to these many bytes (their head and tail),
// and the whole transcript to transcriptCharsPerToken bytes per token of
// the context window (about half of it), or defaultTranscriptBytes when
// the window is unknown.
const (
	maxToolInputBytes       = 1000
	maxToolResultBytes      = 2000
	transcriptCharsPerToken = 2
	defaultTranscriptBytes  = 100_000
)

type compactMode int

const (
	compactManual compactMode = iota // :Magenta compact
	compactAuto                      // the last request passed compactAt
	compactRetry                     // the provider said the prompt is too long
	compactInTurn                    // a long turn passed compactAt between requests
	compactQueued                    // messages queued during a turn that passed compactAt
)

// compactionState is the thread's compaction bookkeeping; owned by the
// thread goroutine.
type compactionState struct {
	// lastInput is the whole prompt of the latest response, in tokens.
	lastInput int
	run       *compactionRun
	seq       int
	// retriedTurn is the turn that already compacted after a
	// prompt-too-long answer: a second one is reported, not retried.
	retriedTurn int
}

type compactionRun struct {
	id       int
	mode     compactMode
	cancel   context.CancelFunc
	entry    *entry
	profile  config.Profile
	replaced int
	// tail goes after the summary and the context files (compactRetry:
	// the user's message that did not fit, or a note to go on).
	tail []provider.Block
}

type (
	msgCompact   struct{}
	msgCompacted struct {
		id      int
		summary string
		usage   provider.Usage
		err     error
		blocks  []provider.Block  // the context files, read whole
		updated map[string]string // path → content now sent
	}
)

// Compact summarizes the conversation so far and continues from the
// summary (:Magenta compact).
func (t *Thread) Compact() { t.enqueue(msgCompact{}) }

func (t *Thread) onCompact() {
	switch {
	case t.compaction.run != nil:
		t.notice(view.NoticeWarning, "already compacting")
	case t.state() != stateIdle:
		t.notice(view.NoticeWarning, "a turn is running: compact when it ends (or after :Magenta abort)")
	case len(t.messages) == 0:
		t.notice(view.NoticeWarning, "nothing to compact: the thread is empty")
	default:
		if err := t.startCompaction(compactManual, t.ctx); err != nil {
			t.compactionFailed(compactManual, err)
		}
	}
}

// noteInput records how much of the context window the latest request
// used.
func (t *Thread) noteInput(u provider.Usage) {
	if u.InputTokens > 0 {
		t.compaction.lastInput = u.InputTokens
	}
}

// compactDue reports whether the next message should compact first.
func (t *Thread) compactDue() bool {
	limit := t.profile.CompactThreshold()
	return limit > 0 && t.compaction.lastInput >= limit && len(t.messages) > 0
}

// compactAndRetry answers a prompt-too-long failure of the current
// request: compact, then send the request again, once per turn.
func (t *Thread) compactAndRetry(err error) bool {
	tr := t.turn
	if !provider.IsContextTooLong(err) || t.compaction.retriedTurn == tr.id || t.compaction.run != nil {
		return false
	}
	t.compaction.retriedTurn = tr.id
	t.notice(view.NoticeWarning, fmt.Sprintf("the conversation no longer fits the model's context window (%v); compacting it and trying again", err))
	note := t.entries[len(t.entries)-1]
	if cerr := t.startCompaction(compactRetry, tr.ctx); cerr != nil {
		// The notice says why not; the request's own error follows.
		note.level, note.text = view.NoticeError, fmt.Sprintf("compaction failed: %v", cerr)
		t.touch(note)
		return false
	}
	return true
}

// compactBetweenRequests compacts between two requests of a long turn
// (after tool results) once the last one passed the threshold, so an
// agent working through many tool calls stays within the window; the
// turn goes on from the summary.
func (t *Thread) compactBetweenRequests() bool {
	if t.compaction.run != nil || !t.compactDue() {
		return false
	}
	if err := t.startCompaction(compactInTurn, t.turn.ctx); err != nil {
		t.notice(view.NoticeWarning, fmt.Sprintf("compaction failed: %v; going on without it", err))
		t.compaction.lastInput = 0
		return false
	}
	return true
}

// compactBeforeQueued compacts before the turn that sends the messages
// queued during the last one, when that one passed the threshold: they
// are already the last message of the history and go after the summary.
func (t *Thread) compactBeforeQueued() bool {
	if t.compaction.run != nil || !t.compactDue() {
		return false
	}
	if err := t.startCompaction(compactQueued, t.ctx); err != nil {
		t.notice(view.NoticeWarning, fmt.Sprintf("compaction failed: %v; sending without it", err))
		t.compaction.lastInput = 0
		return false
	}
	return true
}

// startCompaction asks the model for a summary of the history on a
// worker goroutine and re-reads the context files. The history is left
// alone until the summary has arrived. An error says why it could not
// start; the caller reports it.
func (t *Thread) startCompaction(mode compactMode, parent context.Context) error {
	prof := t.compactionProfile()
	p, err := t.providerForProfile(prof)
	if err != nil {
		return err
	}
	history, tail := t.messages, []provider.Block(nil)
	if mode != compactManual && mode != compactAuto {
		history, tail = splitRetryTail(t.messages)
		if len(history) == 0 {
			return errors.New("the message alone does not fit the model's context window; there is nothing earlier to compact")
		}
	}
	ctx, cancel := context.WithCancel(parent)
	c := &t.compaction
	c.seq++
	e := t.newEntry(entryCompaction)
	e.fold = &foldedText{running: true, messages: len(history)}
	c.run = &compactionRun{id: c.seq, mode: mode, cancel: cancel, entry: e, profile: prof, replaced: len(history), tail: tail}
	req := provider.Request{
		Model:     prof.Model,
		System:    compactionPrompt,
		Messages:  []provider.Message{{Role: provider.RoleUser, Content: []provider.Block{provider.TextBlock(compactionRequest(history, transcriptLimit(prof)))}}},
		MaxTokens: prof.MaxTokens,
	}
	files := make([]contextFile, len(t.context))
	for i, f := range t.context {
		files[i] = contextFile{path: f.path, rel: f.rel} // not seen: read whole
	}
	fs, id := t.deps.ContextFiles, c.seq
	t.workers.Add(1)
	go func() {
		defer t.workers.Done()
		defer cancel()
		msg := msgCompacted{id: id, updated: map[string]string{}}
		msg.summary, msg.usage, msg.err = summarize(ctx, p, req)
		if msg.err == nil {
			for _, f := range files {
				if block, now, _ := contextBlock(ctx, fs, f); block != "" {
					msg.blocks = append(msg.blocks, provider.TextBlock(block))
					msg.updated[f.path] = now
				}
			}
		}
		t.enqueue(msg)
	}()
	t.dirty = true
	return nil
}

// summarize runs the compaction request; a panicking provider is an
// error like any other.
func summarize(ctx context.Context, p provider.Provider, req provider.Request) (summary string, usage provider.Usage, err error) {
	defer func() {
		if r := recover(); r != nil {
			slog.Error("provider panicked during compaction", "panic", r, "stack", string(debug.Stack()))
			err = fmt.Errorf("provider failed with an internal error: %v", r)
		}
	}()
	resp, err := p.Stream(ctx, req, func(provider.Event) {})
	if err != nil {
		return "", provider.Usage{}, err
	}
	var b strings.Builder
	for _, blk := range resp.Message.Content {
		if blk.Kind == provider.BlockText {
			b.WriteString(blk.Text)
		}
	}
	summary = strings.TrimSpace(b.String())
	if summary == "" {
		return "", resp.Usage, errors.New("the model answered with an empty summary")
	}
	return summary, resp.Usage, nil
}

func (t *Thread) onCompacted(m msgCompacted) {
	c := &t.compaction
	run := c.run
	if run == nil || run.id != m.id {
		return // aborted meanwhile
	}
	c.run = nil
	if !m.usage.IsZero() {
		u := usageCost(m.usage, run.profile.Pricing)
		t.usage = addUsage(t.usage, u)
		if tr := t.turn; tr != nil && (run.mode == compactRetry || run.mode == compactInTurn) {
			tr.usage = addUsage(tr.usage, u)
			tr.requests++
		}
		t.dirty = true
	}
	if m.err != nil {
		t.removeEntry(run.entry)
		t.compactionFailed(run.mode, m.err)
		return
	}
	content := append([]provider.Block{provider.TextBlock(SummaryMarker + "\n\n<summary>\n" + m.summary + "\n</summary>")}, m.blocks...)
	content = append(content, run.tail...)
	t.messages = []provider.Message{{Role: provider.RoleUser, Content: content}}
	for _, f := range t.context {
		if now, ok := m.updated[f.path]; ok {
			f.sent, f.seen = now, true
		}
	}
	c.lastInput = 0
	f := run.entry.fold
	f.running = false
	f.text.WriteString(m.summary)
	t.touch(run.entry)
	t.emit(HistoryCompacted{Summary: m.summary, Replaced: run.replaced, History: append([]provider.Message(nil), t.messages...)})
	switch run.mode {
	case compactRetry, compactInTurn:
		if t.turn != nil {
			t.startStream()
		}
	case compactQueued:
		t.startTurn()
		t.dispatch() // waiting messages go behind that turn
	default:
		t.dispatch()
	}
}

// compactionFailed reports a failed compaction; the history is as it
// was. A message held back for it is sent anyway; a turn that waited
// for it fails.
func (t *Thread) compactionFailed(mode compactMode, err error) {
	// Not again for the held-back message: the next reply's usage says
	// whether it is still due.
	t.compaction.lastInput = 0
	msg := fmt.Sprintf("compaction failed: %v\nThe conversation is unchanged.", err)
	if mode == compactInTurn && t.turn != nil {
		t.notice(view.NoticeWarning, msg)
		t.startStream() // the turn goes on uncompacted
		return
	}
	if mode == compactQueued {
		t.notice(view.NoticeWarning, msg)
		t.startTurn() // the queued messages go uncompacted
		t.dispatch()
		return
	}
	if mode == compactRetry && t.turn != nil {
		t.turn.failure = msg
		t.notice(view.NoticeError, msg)
		t.endTurn(false)
		return
	}
	t.notice(view.NoticeError, msg)
	t.dispatch()
}

// abortCompaction stops a running compaction and leaves the history as
// it was; messages held back for it join the history unsent, as queued
// messages of an aborted turn do. It reports whether the abort is done
// (false: a turn is still to abort).
func (t *Thread) abortCompaction() bool {
	run := t.compaction.run
	if run == nil {
		return false
	}
	t.compaction.run = nil
	run.cancel()
	t.removeEntry(run.entry)
	if run.mode == compactRetry || run.mode == compactInTurn {
		return false
	}
	t.notice(view.NoticeInfo, "compaction aborted; the conversation is unchanged")
	if run.mode == compactQueued {
		t.notice(view.NoticeInfo, "your queued messages were not sent; they go with your next message")
	}
	if t.leaveQueued(false) {
		return true // held for the prompt check (hookpoints.go)
	}
	pending := t.takePending()
	for _, e := range pending {
		t.unqueue(e)
		t.appendMessage(provider.Message{Role: provider.RoleUser, Content: append(attachmentBlocks(e.attached), provider.TextBlock(e.text))})
	}
	if len(pending) > 0 {
		t.notice(view.NoticeInfo, "your message was not sent; it goes with your next message")
	}
	return true
}

// compactionStatus is the status line while a compaction runs ("" when
// none does).
func (t *Thread) compactionStatus() string {
	if t.compaction.run == nil {
		return ""
	}
	return "compacting the conversation · :Magenta abort stops"
}

// compactionProfile is the profile that writes the summary: the
// thread's own, or its compactProfile.
func (t *Thread) compactionProfile() config.Profile {
	if name := t.profile.CompactProfile; name != "" && t.deps.Profile != nil {
		if p, ok := t.deps.Profile(name); ok {
			return p
		}
	}
	return t.profile
}

// providerForProfile is providerFor for any profile, cached alike.
func (t *Thread) providerForProfile(p config.Profile) (provider.Provider, error) {
	if pr, ok := t.providers[p.Name]; ok {
		return pr, nil
	}
	pr, err := t.deps.NewProvider(p)
	if err != nil {
		return nil, err
	}
	t.providers[p.Name] = pr
	return pr, nil
}

// splitRetryTail splits a history whose last request was too long into
// what to summarize and what to send after the summary. When the last
// message is the user's (the turn's first request), it is kept whole
// except for its context files, which are read again; after tool
// results, everything is summarized and the model is told to go on.
func splitRetryTail(msgs []provider.Message) ([]provider.Message, []provider.Block) {
	n := len(msgs)
	if n == 0 {
		return nil, nil
	}
	last := msgs[n-1]
	for _, b := range last.Content {
		if b.Kind == provider.BlockToolResult {
			return msgs, []provider.Block{provider.TextBlock("The conversation was compacted in the middle of your work. Continue where the summary says you were.")}
		}
	}
	var tail []provider.Block
	for i, b := range last.Content {
		if b.Kind == provider.BlockText && isContextBlock(b.Text) && i < len(last.Content)-1 {
			continue
		}
		tail = append(tail, b)
	}
	return msgs[:n-1], tail
}

// isContextBlock reports whether a text block is a context file as
// contextBlock writes it.
func isContextBlock(text string) bool { return strings.HasPrefix(text, "Context file ") }

// transcriptLimit is the most bytes of transcript a compaction request
// sends with profile p.
func transcriptLimit(p config.Profile) int {
	if w := p.ContextWindowFor(); w > 0 {
		return w * transcriptCharsPerToken
	}
	return defaultTranscriptBytes
}
