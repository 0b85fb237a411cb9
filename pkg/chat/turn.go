package chat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"github.com/magenta-nvim/magenta/pkg/chat/view"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/threadstore"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

type turnPhase int

const (
	phaseWaiting   turnPhase = iota // request sent, nothing streamed yet
	phaseStreaming                  // deltas arriving
	phaseTools                      // the reply asked for tools; they run
)

// turn is one user request and every model/tool round trip it causes.
type turn struct {
	id int
	// firstEntry is the index of the first entry the turn may still
	// change; earlier entries are settled.
	firstEntry int
	ctx        context.Context
	cancel     context.CancelFunc
	phase      turnPhase
	retry      string // the latest retry notice, shown in the status line
	// retryNote is the one notice that shows the retries of the current
	// request, updated in place and removed once they are over.
	retryNote *entry
	attempts  int // the attempts made of the current request
	// waitingFor names the tool servers the first request waits for
	// (toolwait.go); nil when it does not wait.
	waitingFor []string

	// The current stream, by the provider's block index.
	texts    map[int]*entry
	tools    map[int]*entry
	thinking map[int]*entry
	anyText  bool
	provider provider.Provider

	// The tools of the last reply, in the order the model asked for them,
	// and their results by entry id (the provider's ids may repeat).
	pending []*entry
	results map[string]toolResult
	ticking bool
	// offered: the tools the current request offered; only those run.
	offered tools.Offered
	// How the turn ended, for a sub-agent's result.
	aborted bool
	failure string
	// What the turn's requests used, and how many reported it.
	usage    view.Usage
	requests int
	// paused counts the replies the API paused and this turn continued
	// (websearch.go).
	paused int
}

func (t *Thread) onSend(m msgSend) {
	if strings.TrimSpace(m.text) == "" || t.refuseReadOnly(m.text) {
		return
	}
	if m.typed {
		m = t.expandSlash(m) // slash.go
	}
	t.titleFromFirstMessage(m.text)
	t.prompt.held = false // held messages go with this one
	t.queue(m)
	t.dispatch()
}

// dispatch moves the oldest waiting message on when the thread is idle:
// a compaction first when the last request passed the threshold (the
// message waits for it), else a read of the context files for it, else
// its turn. Busy, it does nothing: the messages wait in t.pending, and
// what ends calls it again — except a turn, whose end sends them all
// together as the next turn (endTurn). With a prompt check
// (hookpoints.go) the read step also checks the message, every waiting
// message goes together, and messages held after an abort wait for the
// user's next one.
func (t *Thread) dispatch() {
	if len(t.pending) == 0 || t.prompt.held || t.state() != stateIdle {
		return
	}
	if t.compactDue() {
		if err := t.startCompaction(compactAuto, t.ctx); err != nil {
			t.compactionFailed(compactAuto, err) // dispatches again, uncompacted
		}
		return
	}
	if len(t.context) > 0 || t.checksPrompts() {
		t.readingContext = true
		t.readContext(t.waitingBatch())
		return
	}
	t.sendWaiting(1, nil)
}

// sendWaiting sends the n oldest waiting messages as one, after the
// context blocks read for them: they join the entries and the turn
// starts.
func (t *Thread) sendWaiting(n int, contextBlocks []provider.Block) {
	t.readingContext = false
	content := contextBlocks
	var typed []threadstore.Typed
	for _, e := range t.pending[:n] {
		t.unqueue(e)
		content = append(content, attachmentBlocks(e.attached)...)
		typed = append(typed, typedAt(len(content), e.attached))
		content = append(content, provider.TextBlock(e.text))
	}
	t.pending = t.pending[n:]
	t.appendTyped(provider.Message{Role: provider.RoleUser, Content: content}, typed)
	t.startTurn()
}

func (t *Thread) startTurn() {
	p, err := t.providerFor()
	if err != nil {
		t.notice(view.NoticeError, err.Error())
		return
	}
	ctx, cancel := context.WithCancel(t.ctx)
	t.turnSeq++
	t.turn = &turn{id: t.turnSeq, ctx: ctx, cancel: cancel, provider: p, firstEntry: len(t.entries)}
	t.startStream()
}

func (t *Thread) providerFor() (provider.Provider, error) {
	return t.providerForProfile(t.profile)
}

func (t *Thread) startStream() {
	tr := t.turn
	tr.phase, tr.retry, tr.anyText, tr.attempts = phaseWaiting, "", false, 1
	tr.texts, tr.tools, tr.thinking = map[int]*entry{}, map[int]*entry{}, map[int]*entry{}
	t.dirty = true
	if t.waitForToolServers() {
		return // sendRequest when they are ready, or the wait is over
	}
	t.sendRequest()
}

// sendRequest sends the history to the model, offering the tools there
// are now, on a worker goroutine.
func (t *Thread) sendRequest() {
	tr := t.turn
	req := provider.Request{
		Model:     t.profile.Model,
		System:    t.deps.SystemPrompt,
		Messages:  t.requestMessages(), // images.go
		Tools:     t.offerTools(tr),
		MaxTokens: t.profile.MaxTokens,
		Reasoning: reasoningFor(t.profile),
		// The provider's own web search, when it stands in for
		// web_search (websearch.go).
		ServerSearch: t.serverSearch(),
	}
	t.workers.Add(1)
	go func() {
		defer t.workers.Done()
		resp, err := t.stream(tr, req)
		t.enqueue(msgStreamDone{turn: tr.id, resp: resp, err: err})
	}()
}

// stream runs on a worker goroutine; a panicking provider becomes an error.
func (t *Thread) stream(tr *turn, req provider.Request) (resp *provider.Response, err error) {
	defer func() {
		if p := recover(); p != nil {
			slog.Error("provider panicked", "panic", p, "stack", string(debug.Stack()))
			resp, err = nil, fmt.Errorf("provider failed with an internal error: %v", p)
		}
	}()
	return tr.provider.Stream(tr.ctx, req, func(ev provider.Event) {
		t.enqueue(msgStream{turn: tr.id, ev: ev})
	})
}

func (t *Thread) onStreamEvent(ev provider.Event) {
	tr := t.turn
	switch ev := ev.(type) {
	case provider.TextDelta:
		tr.phase, tr.retry = phaseStreaming, ""
		t.dropRetryNote()
		e, ok := tr.texts[ev.Index]
		if !ok {
			e = t.newEntry(entryAssistant)
			e.first = !tr.anyText
			t.urgent = t.urgent || !tr.anyText
			tr.anyText = true
			tr.texts[ev.Index] = e
		}
		t.appendText(e, ev.Text)
		t.emit(ReplyDelta{Text: ev.Text})
	case provider.ThinkingDelta:
		t.onThinkingDelta(ev)
		t.emit(ReplyDelta{Text: ev.Text, Thinking: true})
	case provider.ToolUseStart:
		tr.phase, tr.retry = phaseStreaming, ""
		t.dropRetryNote()
		e := t.newEntry(entryTool)
		e.toolID = ev.ID
		e.tool = view.ToolCall{Name: ev.Name, Status: view.ToolPreparing}
		tr.tools[ev.Index] = e
	case provider.ToolUseDelta:
		if e, ok := tr.tools[ev.Index]; ok {
			e.tool.Input += ev.PartialJSON
			if e.tool.Expanded {
				t.touch(e)
			}
		}
	case provider.Retrying:
		tr.retry = retryNotice(ev)
		tr.attempts = ev.Attempt
		if tr.retryNote == nil {
			t.notice(view.NoticeWarning, tr.retry)
			tr.retryNote = t.entries[len(t.entries)-1]
		} else {
			tr.retryNote.text = tr.retry
			t.touch(tr.retryNote)
		}
	}
	t.dirty = true
}

func (t *Thread) onStreamDone(resp *provider.Response, err error) {
	tr := t.turn
	t.saveFoldedTexts()
	t.dropRetryNote()
	t.endThinking()
	if err != nil && !tr.anyText && len(tr.tools) == 0 && t.compactAndRetry(err) {
		return
	}
	if err != nil {
		streamed := tr.anyText || len(tr.tools) > 0
		t.keepPartialText()
		tr.failure = describeError(err, t.profile.Name, tr.attempts, streamed)
		if !t.noteImageRejection(err) { // images.go
			t.notice(view.NoticeError, tr.failure)
		}
		t.endTurn(false)
		return
	}
	t.appendMessage(resp.Message)
	t.drawServerSearches(resp.Message) // websearch.go
	t.agents.tokens += resp.Usage.InputTokens + resp.Usage.OutputTokens
	t.countUsage(resp.Usage)
	t.noteInput(resp.Usage)
	uses := toolUses(resp.Message)
	if len(uses) == 0 && t.continuePaused(resp) {
		return
	}
	if len(uses) == 0 {
		if resp.StopReason == provider.StopMaxTokens {
			t.notice(view.NoticeWarning, "the reply was cut off at the token limit (maxTokens in the profile)")
		}
		t.endTurn(true)
		return
	}
	tr.phase = phaseTools
	tr.pending, tr.results = nil, map[string]toolResult{}
	for _, b := range uses {
		e := t.toolEntry(b)
		tr.pending = append(tr.pending, e)
		t.startTool(tr, e, b)
	}
}

// toolEntry finds the entry ToolUseStart made for b, or makes one when
// the provider did not announce it.
func (t *Thread) toolEntry(b provider.Block) *entry {
	for _, e := range t.turn.tools {
		if e.toolID == b.ToolUseID {
			e.tool.Input = string(b.Input)
			e.tool.Status = view.ToolRunning
			t.touch(e)
			return e
		}
	}
	e := t.newEntry(entryTool)
	e.toolID = b.ToolUseID
	e.tool = view.ToolCall{Name: b.ToolName, Input: string(b.Input), Status: view.ToolRunning}
	return e
}

func (t *Thread) onToolDone(id string, res toolResult) {
	tr := t.turn
	tr.results[id] = res
	for _, e := range tr.pending {
		if e.id == id {
			t.finishTool(e, res)
		}
	}
	if len(tr.results) < len(tr.pending) {
		return
	}
	t.appendToolResults()
	if t.yieldedNow() {
		t.endTurn(true)
		return
	}
	if t.compactBetweenRequests() {
		return
	}
	t.startStream()
}

// appendToolResults answers every tool_use of the last reply, in order;
// one without a result was aborted.
func (t *Thread) appendToolResults() {
	tr := t.turn
	blocks := make([]provider.Block, 0, len(tr.pending))
	for _, e := range tr.pending {
		res, ok := tr.results[e.id]
		if !ok {
			res = toolResult{Text: "The user aborted this tool call before it finished.", IsError: true}
		}
		blocks = append(blocks, res.block(e.toolID))
	}
	t.appendMessage(provider.Message{Role: provider.RoleUser, Content: blocks})
}

func (t *Thread) onAbort() {
	if t.abortCompaction() || t.abortPromptCheck() {
		return
	}
	t.abortSubagents()
	tr := t.turn
	if tr == nil {
		return
	}
	tr.aborted = true
	tr.cancel()
	switch tr.phase {
	case phaseTools:
		for _, e := range tr.pending {
			if _, done := tr.results[e.id]; !done {
				e.tool.Status = view.ToolAborted
				e.tool.Live, e.tool.Running, e.tool.Approval = nil, "", nil
				t.touch(e)
			}
		}
		t.appendToolResults()
	default:
		t.saveFoldedTexts()
		t.keepPartialText()
		t.endThinking()
	}
	t.notice(view.NoticeInfo, "aborted")
	t.endTurn(false)
}

// saveFoldedTexts writes the full text of each block of the stream that
// the display folds, so its fold marker can name the file. Without a
// place to save (no Artifacts) the text stays only in the conversation.
func (t *Thread) saveFoldedTexts() {
	for _, e := range t.turn.texts {
		t.endText(e)
	}
}

// endText marks an assistant text block ended and, when the display
// folds it, saves its full text for the fold marker to name.
func (t *Thread) endText(e *entry) {
	if e.fullText.Ended {
		return
	}
	e.fullText.Ended = true
	if !view.Folded(e.lines, e.last.String()) {
		return // the marker that tells is not drawn
	}
	t.touch(e)
	if t.deps.Env == nil || t.deps.Env.Artifacts == nil {
		return
	}
	path, err := t.deps.Env.Artifacts.Save(t.ID, e.id, "reply.md", []byte(e.assistantText()))
	if err != nil {
		slog.Warn("saving a folded reply failed", "thread", t.ID, "err", err)
		return
	}
	e.fullText.Path = path
}

// closeTurn stops the turn under way when the thread closes (the editor
// quits). A reply still streaming is kept as far as it was drawn, as on
// abort, so the saved thread holds what the user saw; tool calls need
// nothing here (they get an "interrupted" result when the thread is
// reopened).
func (t *Thread) closeTurn() {
	tr := t.turn
	if tr == nil {
		return
	}
	tr.cancel()
	if tr.phase == phaseTools {
		return
	}
	defer func() {
		if p := recover(); p != nil {
			slog.Error("thread panicked while closing", "thread", t.ID, "panic", p, "stack", string(debug.Stack()))
		}
	}()
	t.saveFoldedTexts()
	t.keepPartialText()
}

// keepPartialText records what the model streamed before a stream ended
// early, so the history matches what the user saw. Unfinished tool calls
// are dropped: there is no complete input to answer.
func (t *Thread) keepPartialText() {
	tr := t.turn
	indexes := make([]int, 0, len(tr.texts))
	for i := range tr.texts {
		indexes = append(indexes, i)
	}
	sort.Ints(indexes)
	var blocks []provider.Block
	for _, i := range indexes {
		if text := tr.texts[i].assistantText(); strings.TrimSpace(text) != "" {
			blocks = append(blocks, provider.TextBlock(text))
		}
	}
	for _, e := range tr.tools {
		if e.tool.Status == view.ToolPreparing {
			e.tool.Status = view.ToolAborted
			t.touch(e)
		}
	}
	if len(blocks) > 0 {
		t.appendMessage(provider.Message{Role: provider.RoleAssistant, Content: blocks})
	}
}

// endTurn returns to idle. After a clean end, queued messages are sent as
// the next turn; otherwise they join the history and go with the next
// message the user sends.
func (t *Thread) endTurn(clean bool) {
	ended := t.turn
	defer func() { t.emit(TurnEnded{Clean: clean, Aborted: ended.aborted, Failure: ended.failure}) }()
	t.noteTurnUsage(ended)
	t.turn.cancel()
	t.turn = nil
	t.dirty = true
	if len(t.pending) == 0 || t.leaveQueued(clean) {
		return
	}
	var blocks []provider.Block
	var typed []threadstore.Typed
	for _, e := range t.takePending() {
		t.unqueue(e) // after the turn's last line, its usage
		blocks = append(blocks, attachmentBlocks(e.attached)...)
		typed = append(typed, typedAt(len(blocks), e.attached))
		blocks = append(blocks, provider.TextBlock(e.text))
	}
	t.appendTyped(provider.Message{Role: provider.RoleUser, Content: blocks}, typed)
	if clean {
		if t.compactBeforeQueued() {
			return
		}
		t.startTurn()
	} else {
		t.notice(view.NoticeInfo, "your queued messages were not sent; they go with your next message")
	}
}

// appendMessage adds m to the history, merging it into the last message
// when both have the same role (providers want roles to alternate) and
// dropping empty messages (providers reject them).
func (t *Thread) appendMessage(m provider.Message) { t.appendTyped(m, nil) }

// appendTyped is appendMessage for a user message whose blocks include
// text the user typed (typed: which, and what its mentions attached), so
// a reopened thread shows it as the user saw it. Observers are told
// MessageAppended.
func (t *Thread) appendTyped(m provider.Message, typed []threadstore.Typed) {
	if len(m.Content) == 0 {
		return
	}
	if n := len(t.messages); n > 0 && t.messages[n-1].Role == m.Role {
		last := t.messages[n-1]
		merged := make([]provider.Block, 0, len(last.Content)+len(m.Content))
		merged = append(append(merged, last.Content...), m.Content...)
		t.messages[n-1] = provider.Message{Role: m.Role, Content: merged}
	} else {
		t.messages = append(t.messages, m)
	}
	t.emit(MessageAppended{Message: m, Typed: typed})
}

func toolUses(m provider.Message) []provider.Block {
	var uses []provider.Block
	for _, b := range m.Content {
		if b.Kind == provider.BlockToolUse {
			if len(b.Input) == 0 || !json.Valid(b.Input) {
				b.Input = json.RawMessage("{}")
			}
			uses = append(uses, b)
		}
	}
	return uses
}

// retryNotice is the line that shows a request's retries: the error,
// when the request goes again, and which retry of how many that is (the
// last one says so, so no one waits for another).
func retryNotice(ev provider.Retrying) string {
	retry, of := ev.Attempt-1, ev.MaxAttempts-1
	when := "now"
	if ev.Delay > 0 {
		when = "in " + ev.Delay.Round(100*time.Millisecond).String()
	}
	last := ""
	if retry >= of {
		last = ", the last"
	}
	return fmt.Sprintf("%v; retrying %s (retry %d of %d%s)", ev.Err, when, retry, of, last)
}

// describeError says what ended a request: after how many retries, and
// that the partial reply is kept only when something was streamed.
func describeError(err error, profile string, attempts int, streamed bool) string {
	var missing *provider.MissingKeyError
	var pe *provider.Error
	var idle *provider.IdleTimeoutError
	tail := "\nSend a message to try again."
	if streamed {
		tail = "\nWhat was streamed is kept; send a message to go on."
	}
	after := ""
	if retries := attempts - 1; retries > 0 {
		after = " after " + view.Count(retries, "retry", "retries")
	}
	switch {
	case errors.As(err, &missing):
		return err.Error()
	case errors.As(err, &idle):
		return fmt.Sprintf("the reply stalled and was given up%s: %v; the limit is idleTimeout in profile %q.%s", after, idle, profile, tail)
	case errors.As(err, &pe) && pe.Kind == provider.ErrAuth:
		return fmt.Sprintf("the provider refused the API key of profile %q: %v", profile, err)
	case errors.As(err, &pe) && pe.Kind == provider.ErrConnection:
		return fmt.Sprintf("the connection to the provider failed%s: %v%s", after, err, tail)
	}
	return fmt.Sprintf("the request failed%s: %v%s", after, err, tail)
}

// dropRetryNote removes the retry notice of the current request: once
// the request has gone through, or failed for good, it says nothing true.
func (t *Thread) dropRetryNote() {
	tr := t.turn
	if tr == nil || tr.retryNote == nil {
		return
	}
	t.removeEntry(tr.retryNote)
	tr.retryNote = nil
}

func (t *Thread) statusText() string {
	if s := t.compactionStatus(); s != "" {
		return s
	}
	tr := t.turn
	if tr == nil && t.readingContext && t.checksPrompts() {
		return "checking your message (hooks, context files) before it goes"
	}
	if tr == nil {
		return "ready · <CR> in the input window sends"
	}
	queued := ""
	if n := len(t.pending); n > 0 {
		queued = fmt.Sprintf(" · %d queued", n)
	}
	switch {
	case tr.waitingFor != nil:
		return waitingForServers(tr.waitingFor) + " · :Magenta abort stops" + queued
	case tr.retry != "":
		return "waiting to retry · :Magenta abort stops" + queued
	case tr.phase == phaseWaiting:
		return "waiting for " + t.profile.Model + " · :Magenta abort stops" + queued
	case tr.phase == phaseStreaming:
		return "streaming · :Magenta abort stops" + queued
	default:
		running := len(tr.pending) - len(tr.results)
		return fmt.Sprintf("running %s · :Magenta abort stops%s", view.Count(running, "tool", "tools"), queued)
	}
}

func (t *Thread) statusWord() string {
	if t.state() == stateIdle {
		return "idle"
	}
	return "busy"
}
