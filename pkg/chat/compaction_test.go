package chat

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/memfs"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// compactHarness is a harness whose profile has a 1000-token window
// compacting at half.
type compactHarness struct {
	*harness
}

func newCompactHarness(t *testing.T, profiles ...config.Profile) *compactHarness {
	t.Helper()
	if len(profiles) == 0 {
		profiles = []config.Profile{{Name: "small", Provider: "anthropic", Model: "model-a", ContextWindow: 1000, CompactAt: 0.5}}
	}
	screen := newRecordingScreen()
	fake := providertest.New()
	h := &compactHarness{}
	app, err := NewApp(context.Background(), config.Options{Profiles: profiles}, AppDeps{
		Screen: screen, Tools: tools.Default(), Env: &capabilities.Environment{Name: "test", Cwd: t.TempDir()},
		NewProvider:  func(config.Profile) (provider.Provider, error) { return fake, nil },
		SystemPrompt: "be brief",
	})
	require.NoError(t, err)
	t.Cleanup(app.Close)
	screen.waitForText(t, "# New thread")
	h.harness = &harness{app: app, screen: screen, fake: fake}
	return h
}

// exchange sends text and answers it with reply, reporting input tokens.
func (h *compactHarness) exchange(t *testing.T, text, reply string, input int) *providertest.Call {
	t.Helper()
	h.app.Send(text)
	call := h.fake.Next(t)
	call.Usage(provider.Usage{InputTokens: input, OutputTokens: 10})
	call.Reply(reply)
	h.screen.waitFor(t, "the turn to end", func(s string) bool { return strings.Contains(s, reply) && strings.Contains(s, "ready") })
	return call
}

// requireCompactionRequest checks that call asks for a summary of the
// conversation as a transcript, without tools, and answers it.
func requireCompactionRequest(t *testing.T, call *providertest.Call, wants ...string) {
	t.Helper()
	assert.Empty(t, call.Request.Tools, "a compaction request offers no tools")
	assert.Equal(t, compactionPrompt, call.Request.System)
	require.Len(t, call.Request.Messages, 1)
	for _, w := range wants {
		assert.Contains(t, call.LastUserText(), w)
	}
}

func TestCompactionTriggeredByReportedUsage(t *testing.T) {
	h := newCompactHarness(t)
	h.exchange(t, "first task", "done one", 300) // under 500: no compaction
	h.exchange(t, "second task", "done two", 600)

	h.app.Send("third task")
	call := h.fake.Next(t)
	requireCompactionRequest(t, call, "[user]\nfirst task", "[assistant]\ndone one", "second task", "done two")
	assert.NotContains(t, call.LastUserText(), "third task")
	h.screen.waitForText(t, "⟳ compacting the conversation (4 messages)")
	// The message waits in the one queue, drawn as queued (it was not
	// drawn at all while the compaction ran).
	waiting := h.screen.waitForText(t, "## user (queued")
	assert.Contains(t, waiting, "third task")
	call.Usage(provider.Usage{InputTokens: 700, OutputTokens: 50})
	call.Reply("SUMMARY: two tasks done.")

	next := h.fake.Next(t)
	msgs := next.Request.Messages
	require.Len(t, msgs, 1, "the history is the summary and the new message")
	assert.True(t, strings.HasPrefix(msgs[0].Content[0].Text, SummaryMarker))
	assert.Contains(t, msgs[0].Content[0].Text, "SUMMARY: two tasks done.")
	assert.Equal(t, "third task", next.LastUserText()[len(next.LastUserText())-len("third task"):])
	next.Usage(provider.Usage{InputTokens: 100, OutputTokens: 5})
	next.Reply("done three")

	text := h.screen.waitForText(t, "done three")
	// The display keeps everything; the marker sits before the new message.
	marker := strings.Index(text, "▸ context compacted (4 messages summarized")
	require.GreaterOrEqual(t, marker, 0, text)
	assert.Less(t, strings.Index(text, "done two"), marker)
	assert.Less(t, marker, strings.Index(text, "third task"))
	assert.NotContains(t, text, "SUMMARY: two tasks done.", "the summary is folded")
	// The compaction's tokens count in the thread's total.
	h.screen.waitForText(t, "tokens: 1.7k in · 75 out")

	h.app.Key("toggle", h.screen.lineOf(t, "▸ context compacted"))
	h.screen.waitForText(t, "  SUMMARY: two tasks done.")
}

func TestManualCompaction(t *testing.T) {
	h := newCompactHarness(t, config.Profile{Name: "p", Provider: "anthropic", Model: "unknown-model"})
	h.app.Compact()
	h.screen.waitForText(t, "nothing to compact: the thread is empty")

	h.app.Send("task")
	call := h.fake.Next(t)
	h.app.Compact()
	h.screen.waitForText(t, "a turn is running: compact when it ends")
	call.Reply("done")
	h.screen.waitForText(t, "ready")

	h.app.Compact()
	c := h.fake.Next(t)
	requireCompactionRequest(t, c, "[user]\ntask", "[assistant]\ndone")
	c.Reply("the summary")
	h.screen.waitForText(t, "▸ context compacted (2 messages summarized")

	h.app.Send("more")
	next := h.fake.Next(t)
	require.Len(t, next.Request.Messages, 1)
	assert.Contains(t, next.Request.Messages[0].Content[0].Text, "the summary")
	assert.Equal(t, "more", next.Request.Messages[0].Content[1].Text)
	next.Reply("ok")
}

// A failed compaction says so and leaves the history as it was; the
// message that waited for it is sent with the whole history.
func TestCompactionFailureLeavesHistoryIntact(t *testing.T) {
	h := newCompactHarness(t)
	h.exchange(t, "first task", "done one", 800)

	h.app.Send("second task")
	c := h.fake.Next(t)
	requireCompactionRequest(t, c, "first task")
	c.Fail(&provider.Error{Kind: provider.ErrServer, Status: 500, Message: "boom"})
	h.screen.waitForText(t, "compaction failed: server (HTTP 500): boom")
	h.screen.waitForText(t, "The conversation is unchanged.")

	next := h.fake.Next(t)
	msgs := next.Request.Messages
	require.Len(t, msgs, 3)
	assert.Equal(t, "first task", msgs[0].Content[0].Text)
	assert.Equal(t, "done one", msgs[1].Content[0].Text)
	assert.Equal(t, "second task", next.LastUserText())
	next.Reply("done two")
	// Compact (below) is refused while the turn runs: wait for its end,
	// not only for the reply's text.
	text := h.screen.waitFor(t, "the turn to end", func(s string) bool { return strings.Contains(s, "done two") && strings.Contains(s, "ready") })
	assert.NotContains(t, text, "context compacted")

	// Manual compaction that fails leaves it intact too.
	h.app.Compact()
	c = h.fake.Next(t)
	c.Reply("   ")
	h.screen.waitForText(t, "compaction failed: the model answered with an empty summary")
	h.app.Send("third")
	assert.Len(t, h.fake.Next(t).Request.Messages, 5)
}

func TestPromptTooLongCompactsAndRetriesOnce(t *testing.T) {
	h := newCompactHarness(t, config.Profile{Name: "p", Provider: "anthropic", Model: "unknown-model"})
	tooLong := &provider.Error{Kind: provider.ErrContextTooLong, Status: 400, Type: "invalid_request_error", Message: "prompt is too long: 210000 tokens > 200000 maximum"}

	// The first message alone is too long: nothing to compact, the
	// error is shown and the thread stays usable.
	h.app.Send("a huge paste")
	h.fake.Next(t).Fail(tooLong)
	h.screen.waitForText(t, "compaction failed: the message alone does not fit")
	h.screen.waitForText(t, "✗ the request failed: context_too_long")
	h.screen.waitForText(t, "ready")

	h.exchange(t, "first task", "done one", 100)
	h.app.Send("second task")
	h.fake.Next(t).Fail(tooLong)
	h.screen.waitForText(t, "compacting it and trying again")
	c := h.fake.Next(t)
	requireCompactionRequest(t, c, "first task", "done one")
	assert.NotContains(t, c.LastUserText(), "second task", "the user's message goes after the summary, whole")
	h.screen.waitForText(t, "compacting the conversation · :Magenta abort stops")
	c.Reply("summary of the first task")

	retry := h.fake.Next(t)
	require.Len(t, retry.Request.Messages, 1)
	content := retry.Request.Messages[0].Content
	assert.Contains(t, content[0].Text, "summary of the first task")
	assert.Equal(t, "second task", content[len(content)-1].Text)
	retry.Reply("done two")
	text := h.screen.waitForText(t, "done two")
	assert.Less(t, strings.Index(text, "compacting it and trying again"), strings.Index(text, "▸ context compacted"), "the notice comes before the marker")

	// A second failure in the same turn is reported, not retried again.
	h.app.Send("third task")
	h.fake.Next(t).Fail(tooLong)
	c = h.fake.Next(t)
	c.Reply("summary two")
	h.fake.Next(t).Fail(tooLong)
	h.screen.waitForText(t, "✗ the request failed: context_too_long (HTTP 400) invalid_request_error: prompt is too long")
	// The frame that first shows the failure may precede the one that
	// draws the turn's notice (seen once in 100 runs under load): wait for
	// the display to hold both turns' notices, then check no third came.
	h.screen.waitFor(t, "the third task's retry notice", func(text string) bool {
		return strings.Count(text, "compacting it and trying again") >= 2
	})
	text = h.screen.waitForText(t, "✗ the request failed: context_too_long")
	assert.Equal(t, 1, strings.Count(text, "compacting it and trying again")-1, "one retry per turn")
}

// Abort during compaction stops it; the history stays and the message
// that waited goes with the next one.
func TestAbortDuringCompaction(t *testing.T) {
	h := newCompactHarness(t)
	h.exchange(t, "first task", "done one", 800)
	h.app.Send("second task")
	c := h.fake.Next(t)
	h.screen.waitForText(t, "⟳ compacting")
	h.app.Abort()
	<-c.Ended()
	text := h.screen.waitForText(t, "compaction aborted; the conversation is unchanged")
	assert.NotContains(t, text, "⟳ compacting")
	h.screen.waitForText(t, "your message was not sent")
	h.app.Send("third")
	// Still over the threshold: it compacts again, with all of it.
	c = h.fake.Next(t)
	requireCompactionRequest(t, c, "first task", "second task")
}

// After compaction the context files are sent whole again, right after
// the summary, then only their changes.
func TestCompactionRereadsContextFiles(t *testing.T) {
	fs := memfs.New()
	dir := "/"
	path := filepath.Join(dir, "notes.md")
	ctx := context.Background()
	require.NoError(t, fs.WriteFile(ctx, path, []byte("version one\n")))
	screen := newRecordingScreen()
	fake := providertest.New()
	app, err := NewApp(context.Background(), config.Options{Profiles: []config.Profile{{Name: "p", Provider: "anthropic", Model: "m"}}}, AppDeps{
		Screen: screen, Tools: tools.Default(), Env: &capabilities.Environment{Name: "test", Cwd: dir},
		NewProvider:  func(config.Profile) (provider.Provider, error) { return fake, nil },
		SystemPrompt: "be brief", ContextFiles: fs,
	})
	require.NoError(t, err)
	t.Cleanup(app.Close)
	app.AddContext([]string{path})
	app.Send("read my notes")
	call := fake.Next(t)
	assert.Contains(t, call.Request.Messages[0].Content[0].Text, "Context file notes.md:\n```\nversion one")
	call.Reply("read")
	screen.waitForText(t, "ready")

	require.NoError(t, fs.WriteFile(ctx, path, []byte("version two\n")))
	app.Compact()
	c := fake.Next(t)
	c.Reply("summary")
	screen.waitForText(t, "▸ context compacted")
	app.Send("go on")
	next := fake.Next(t)
	content := next.Request.Messages[0].Content
	require.Len(t, content, 3, "summary, the context file whole, the message")
	assert.Contains(t, content[0].Text, "summary")
	assert.Contains(t, content[1].Text, "Context file notes.md:\n```\nversion two")
	assert.Equal(t, "go on", content[2].Text)
	next.Reply("ok")
}

// A long turn compacts between two requests once the last one passed
// the threshold, and goes on from the summary.
func TestCompactionInTheMiddleOfATurn(t *testing.T) {
	h := newCompactHarness(t)
	h.app.Send("rename the thread")
	call := h.fake.Next(t)
	call.Usage(provider.Usage{InputTokens: 900})
	call.ToolUse("tu_1", "thread_title", map[string]string{"title": "Long turn"})
	call.Stop(provider.StopToolUse)

	c := h.fake.Next(t)
	requireCompactionRequest(t, c, "[user]\nrename the thread", "[tool call thread_title tu_1", "[tool result tu_1]")
	c.Reply("summary: the title was set")

	next := h.fake.Next(t)
	require.Len(t, next.Request.Messages, 1)
	content := next.Request.Messages[0].Content
	assert.Contains(t, content[0].Text, "summary: the title was set")
	assert.Contains(t, content[len(content)-1].Text, "Continue where the summary says you were")
	assert.NotEmpty(t, next.Request.Tools, "the turn goes on with its tools")
	next.Reply("all done")
	text := h.screen.waitForText(t, "all done")
	assert.Less(t, strings.Index(text, "✓ thread_title"), strings.Index(text, "▸ context compacted (3 messages summarized"), text)
}

// Messages queued during a turn that passed the threshold go after the
// summary, in the next turn.
func TestCompactionBeforeQueuedMessages(t *testing.T) {
	h := newCompactHarness(t)
	h.app.Send("long task")
	call := h.fake.Next(t)
	h.app.Send("queued note")
	h.screen.waitForText(t, "1 queued")
	call.Usage(provider.Usage{InputTokens: 900})
	call.Reply("finished")

	c := h.fake.Next(t)
	requireCompactionRequest(t, c, "[user]\nlong task", "[assistant]\nfinished")
	assert.NotContains(t, c.LastUserText(), "queued note")
	h.app.Send("sent while compacting")
	c.Reply("summary")

	next := h.fake.Next(t)
	require.Len(t, next.Request.Messages, 1)
	content := next.Request.Messages[0].Content
	assert.Contains(t, content[0].Text, "summary")
	assert.Equal(t, "queued note", content[len(content)-1].Text)
	next.Reply("noted")
	after := h.fake.Next(t)
	assert.Equal(t, "sent while compacting", after.LastUserText())
	after.Reply("ok")
	h.screen.waitForText(t, "ok")
}
