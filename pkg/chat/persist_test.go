package chat

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/toolfiles"
	"github.com/magenta-nvim/magenta/pkg/chat/view"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
	"github.com/magenta-nvim/magenta/pkg/threadstore"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// savingHarness is an app whose threads are saved in dataDir.
func savingHarness(t *testing.T, dataDir string, reg *tools.Registry) (*harness, *threadstore.Store) {
	t.Helper()
	return savingHarnessIn(t, dataDir, reg, &capabilities.Environment{Name: "local", Cwd: t.TempDir()})
}

// savingHarnessIn is savingHarness with the threads' environment.
func savingHarnessIn(t *testing.T, dataDir string, reg *tools.Registry, env *capabilities.Environment) (*harness, *threadstore.Store) {
	t.Helper()
	if reg == nil {
		reg = tools.Default()
	}
	store, err := threadstore.Open(dataDir, "/ws", func(msg string) { t.Log(msg) })
	require.NoError(t, err)
	screen := newRecordingScreen()
	fake := providertest.New()
	app, err := NewApp(context.Background(), config.Options{Profiles: testProfiles, Subagents: config.Subagents{MaxDepth: 1}}, AppDeps{
		Screen: screen, Tools: reg, Env: env,
		NewProvider:  func(config.Profile) (provider.Provider, error) { return fake, nil },
		SystemPrompt: "be brief", Store: store,
	})
	require.NoError(t, err)
	t.Cleanup(app.Close)
	screen.waitForText(t, "# New thread")
	return &harness{app: app, screen: screen, fake: fake}, store
}

func TestThreadIsSavedAndContinuedInANewApp(t *testing.T) {
	dir := t.TempDir()
	h, store := savingHarness(t, dir, nil)
	h.app.SendAttached("rename it", []Attachment{{Label: "@diff (1 lines)", Text: "diff text"}})
	call := h.fake.Next(t)
	call.Text("Renaming.\nSecond line.")
	call.ToolUse("tu_1", "thread_title", map[string]string{"title": "Saved one"})
	call.Usage(provider.Usage{InputTokens: 100, OutputTokens: 7})
	call.Stop(provider.StopToolUse)
	h.fake.Next(t).Reply("Done.")
	h.screen.waitForText(t, "Done.")
	h.screen.waitForText(t, "ready")
	id := h.app.ActiveThreadID()
	h.app.Close() // the host exits

	list := store.List()
	require.Len(t, list, 1)
	assert.Equal(t, id, list[0].ID)
	assert.Equal(t, "Saved one", list[0].Title)
	assert.Equal(t, 4, list[0].Messages)

	h2, _ := savingHarness(t, dir, nil)
	h2.app.ShowThreads()
	text := h2.screen.waitForText(t, "Saved one")
	assert.Contains(t, text, "saved, 4 messages")
	h2.app.Key("activate", h2.screen.lineOf(t, "Saved one"))
	text = h2.screen.waitForText(t, "Done.")
	assert.Contains(t, text, "# Saved one")
	assert.Contains(t, text, "rename it\n(attached: @diff (1 lines))")
	assert.NotContains(t, text, "diff text", "attachments are not shown as typed text")
	assert.Contains(t, text, "Renaming.\nSecond line.")
	assert.Contains(t, text, "✓ thread_title: Saved one")
	assert.Contains(t, text, "100 in")

	h2.app.Send("and now?")
	next := h2.fake.Next(t)
	msgs := next.Request.Messages
	require.Len(t, msgs, 5, "the whole history goes to the provider")
	assert.Equal(t, "diff text", msgs[0].Content[0].Text)
	assert.Equal(t, "tu_1", msgs[2].Content[0].ToolUseID)
	assert.Equal(t, "and now?", next.LastUserText())
	next.Reply("Continued.")
	h2.screen.waitForText(t, "Continued.")
	h2.screen.waitForText(t, "ready")
	assert.Equal(t, id, h2.app.ActiveThreadID(), "the same thread goes on")
	h2.app.SetProfile("slow")
	h2.screen.waitForText(t, "profile slow")
	h2.app.Close()
	saved, err := store.Load(id)
	require.NoError(t, err)
	assert.Len(t, saved.Messages, 6)
	assert.Equal(t, "slow", saved.Header.Profile, "a switch of profile is saved")
	assert.Equal(t, "slow", store.List()[0].Profile)
}

func TestInterruptedToolCallsGetAResultOnReopen(t *testing.T) {
	dir := t.TempDir()
	started := make(chan struct{})
	reg, err := tools.NewRegistry(tools.ThreadTitle(), blockingTool(started))
	require.NoError(t, err)
	h, _ := savingHarness(t, dir, reg)
	h.app.Send("wait for it")
	call := h.fake.Next(t)
	call.Text("Waiting.")
	call.ToolUse("tu_9", "wait", map[string]string{})
	call.Stop(provider.StopToolUse)
	<-started
	id := h.app.ActiveThreadID()
	h.app.Close() // the editor closes while the tool runs

	h2, _ := savingHarness(t, dir, reg)
	// The whole id: the new app's own first thread can share a shorter
	// prefix (UUIDv7 begins with the millisecond it was made), and a
	// prefix two threads share opens neither.
	h2.app.SelectThread(id)
	text := h2.screen.waitForText(t, "Waiting.")
	assert.Contains(t, text, "✗ wait")
	h2.app.Send("go on")
	next := h2.fake.Next(t)
	msgs := next.Request.Messages
	require.Len(t, msgs, 3)
	res := msgs[2].Content[0]
	assert.Equal(t, "tu_9", res.ToolUseID)
	assert.True(t, res.IsError)
	assert.Equal(t, InterruptedResult, res.Result[0].Text)
	assert.Equal(t, "go on", msgs[2].Content[1].Text)
	next.Reply("ok")
}

// The editor quits while a reply streams: the saved thread keeps the
// reply as far as it was drawn, and goes on from there when reopened.
func TestReplyStreamingAtCloseIsKept(t *testing.T) {
	dir := t.TempDir()
	h, store := savingHarness(t, dir, nil)
	h.app.Send("tell me")
	call := h.fake.Next(t)
	call.Text("The first half")
	h.screen.waitForText(t, "The first half")
	id := h.app.ActiveThreadID()
	h.app.Close()
	select {
	case <-call.Ended():
	case <-time.After(providertest.DefaultWait):
		t.Fatal("the stream was not cancelled when the thread closed")
	}
	saved, err := store.Load(id)
	require.NoError(t, err)
	require.Len(t, saved.Messages, 2)
	assert.Equal(t, provider.RoleAssistant, saved.Messages[1].Role)
	assert.Equal(t, "The first half", saved.Messages[1].Content[0].Text)

	h2, _ := savingHarness(t, dir, nil)
	h2.app.SelectThread(id)
	h2.screen.waitForText(t, "The first half")
	h2.app.Send("go on")
	next := h2.fake.Next(t)
	require.Len(t, next.Request.Messages, 3)
	assert.Equal(t, "The first half", next.Request.Messages[1].Content[0].Text)
	next.Reply("the second half")
	h2.screen.waitForText(t, "the second half")
}

// A long reply is folded with a marker naming the file that holds all of
// it; reopened, the thread names the file again (written anew), and
// without a place for files the marker promises none.
func TestReopenedFoldedReplyNamesItsFile(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("a line of the reply\n", view.FoldAfterLines+10) + "the end"
	env := &capabilities.Environment{Name: "local", Cwd: t.TempDir(), Artifacts: toolfiles.Store{Root: t.TempDir()}}
	h, _ := savingHarnessIn(t, dir, nil, env)
	h.app.Send("say a lot")
	h.fake.Next(t).Reply(long)
	h.screen.waitForText(t, "ready")
	live := h.screen.waitForText(t, "lines folded; full text in ")
	id := h.app.ActiveThreadID()
	h.app.Close()

	h2, _ := savingHarnessIn(t, dir, nil, env)
	h2.app.SelectThread(id)
	text := h2.screen.waitForText(t, "the end")
	m := regexp.MustCompile(`\[… (\d+) lines folded; full text in (\S+)\]`).FindStringSubmatch(text)
	require.NotNil(t, m, text)
	assert.Contains(t, live, "[… "+m[1]+" lines folded")
	data, err := os.ReadFile(m[2])
	require.NoError(t, err)
	assert.Equal(t, long, string(data))
	h2.app.Close()

	h3, _ := savingHarness(t, dir, nil) // no Artifacts
	h3.app.SelectThread(id)
	text = h3.screen.waitForText(t, "the end")
	assert.Contains(t, text, "[… "+m[1]+" lines folded]\n")
}

// changeTool stands for an edit: its result carries a diff of n changed
// lines and the place the diff opens.
func changeTool(name string, n int) tools.Tool {
	return tools.MustTyped(name, "changes", nil, func(context.Context, tools.Call, struct{}) tools.Result {
		var diff strings.Builder
		fmt.Fprintf(&diff, "--- a/a.go\n+++ b/a.go\n@@ -3,%d +3,%d @@\n", n, n)
		for i := range n {
			fmt.Fprintf(&diff, "-old %d\n+new %d\n", i, i)
		}
		return tools.Result{Text: "changed", Diff: diff.String(), Location: &tools.Location{Path: "a.go", Line: 3}}
	})
}

// A reopened thread draws the diffs of its edits as they were drawn,
// and <CR> on one still opens the file; the log keeps only what is drawn.
func TestReopenedThreadShowsEditDiffs(t *testing.T) {
	dir := t.TempDir()
	reg, err := tools.NewRegistry(changeTool("change", 1), changeTool("change_more", 100))
	require.NoError(t, err)
	h, store := savingHarness(t, dir, reg)
	h.app.Send("change it")
	call := h.fake.Next(t)
	call.ToolUse("tu_1", "change", map[string]string{})
	call.ToolUse("tu_2", "change_more", map[string]string{})
	call.Stop(provider.StopToolUse)
	h.fake.Next(t).Reply("Changed.")
	h.screen.waitForText(t, "Changed.")
	live := h.screen.waitForText(t, "ready")
	require.Contains(t, live, "  +new 0\n")
	require.Contains(t, live, "  … 163 more diff lines")
	id := h.app.ActiveThreadID()
	h.app.Close()

	h2, _ := savingHarness(t, dir, reg)
	h2.app.SelectThread(id)
	reopened := h2.screen.waitForText(t, "Changed.")
	section := func(text string) string {
		start := strings.Index(text, "change")
		end := strings.Index(text, "Changed.")
		require.True(t, start >= 0 && end > start, text)
		return text[start:end]
	}
	assert.Equal(t, section(live), section(reopened))
	h2.app.Key("activate", h2.screen.lineOf(t, "+new 0"))
	h2.waitNote(t, "open a.go:3")

	saved, err := store.Load(id)
	require.NoError(t, err)
	d := saved.Messages[2].Display.Tools["tu_2"]
	assert.Equal(t, 203, d.DiffLines)
	assert.NotContains(t, d.Diff, "new 99", "only the drawn head of a long diff is saved")
	assert.Zero(t, saved.Messages[2].Display.Tools["tu_1"].DiffLines, "a short diff is saved whole")
}

func TestThreadWrittenElsewhereOpensReadOnly(t *testing.T) {
	dir := t.TempDir()
	h, store := savingHarness(t, dir, nil)
	h.app.Send("first")
	h.fake.Next(t).Reply("answer")
	h.screen.waitForText(t, "ready")
	id := h.app.ActiveThreadID()
	// The reply is on disk before the second app opens the thread (the
	// frame saying ready can come before the thread's goroutine wrote it).
	deadline := time.Now().Add(10 * time.Second)
	for {
		saved, err := store.Load(id)
		if err == nil && len(saved.Messages) == 2 {
			break
		}
		require.True(t, time.Now().Before(deadline), "the reply was not saved: %v", err)
		time.Sleep(5 * time.Millisecond) // polling the store, with a deadline
	}

	// A second app in the same workspace (another Neovim): it lists the
	// thread, and opens it read-only while the first one has it.
	h2, _ := savingHarness(t, dir, nil)
	h2.app.SelectThread(id)
	text := h2.screen.waitForText(t, "answer")
	assert.Contains(t, text, "shown read-only here")
	h2.app.Send("may I?")
	h2.screen.waitForText(t, "Start another thread with :Magenta new-thread")
	h2.screen.waitFor(t, "the message given back to the input", func(string) bool {
		h2.screen.mu.Lock()
		defer h2.screen.mu.Unlock()
		return len(h2.screen.restored) == 1 && h2.screen.restored[0] == "may I?"
	})

	h.app.Send("second")
	h.fake.Next(t).Reply("answer two")
	h.screen.waitForText(t, "answer two")
	h.screen.waitForText(t, "ready")
	saved, err := store.Load(id)
	require.NoError(t, err)
	assert.Len(t, saved.Messages, 4, "the read-only copy wrote nothing")
}

func TestDeleteThread(t *testing.T) {
	dir := t.TempDir()
	h, store := savingHarness(t, dir, nil)
	h.app.Send("keep me")
	h.fake.Next(t).Reply("kept")
	h.screen.waitForText(t, "ready")
	kept := h.app.ActiveThreadID()
	h.app.NewThread()
	h.screen.waitFor(t, "a new thread", func(text string) bool { return !strings.Contains(text, "kept") })
	h.app.Send("drop me")
	h.fake.Next(t).Reply("dropped")
	h.screen.waitForText(t, "dropped")
	h.screen.waitForText(t, "ready")
	dropped := h.app.ActiveThreadID()
	require.Len(t, store.List(), 2)

	h.app.DeleteThread("")
	h.screen.waitFor(t, "the other thread", func(text string) bool { return strings.Contains(text, "kept") })
	h.waitNote(t, "deleted thread "+dropped)
	require.Len(t, store.List(), 1)
	assert.Equal(t, kept, store.List()[0].ID)
	assert.Len(t, h.app.ThreadIDs(), 1)

	h.app.Close()
	h2, _ := savingHarness(t, dir, nil)
	h2.app.DeleteThread(kept[:14])
	h2.waitNote(t, "deleted thread "+kept)
	assert.Empty(t, store.List())
}

// waitNote waits for a notification containing sub.
func (h *harness) waitNote(t *testing.T, sub string) {
	t.Helper()
	h.screen.waitFor(t, "a notification "+sub, func(string) bool {
		h.screen.mu.Lock()
		defer h.screen.mu.Unlock()
		for _, n := range h.screen.notes {
			if strings.Contains(n, sub) {
				return true
			}
		}
		return false
	})
}

func TestUnusedThreadsLeaveNoFile(t *testing.T) {
	h, store := savingHarness(t, t.TempDir(), nil)
	h.app.NewThread()
	h.app.NewThread()
	h.app.ShowThreads()
	h.screen.waitForText(t, "# Threads")
	assert.Empty(t, store.List())
}

func TestSubagentsAreSavedUnderTheirParent(t *testing.T) {
	dir := t.TempDir()
	h, store := savingHarness(t, dir, nil)
	parent := make(chan *providertest.Call, 4)
	h.fake.Serve(func(c *providertest.Call) {
		if isSubagent(c) {
			c.ToolUse("y", "yield_to_parent", map[string]string{"result": "found it"})
			c.Stop(provider.StopToolUse)
			return
		}
		parent <- c
	})
	next := func() *providertest.Call {
		select {
		case c := <-parent:
			return c
		case <-time.After(providertest.DefaultWait):
			t.Fatal("no request from the parent")
			return nil
		}
	}
	h.app.Send("delegate")
	c := next()
	c.ToolUse("s1", "spawn_subagents", map[string]any{"agents": []map[string]any{{"prompt": "look around"}}})
	c.Stop(provider.StopToolUse)
	c = next()
	assert.Contains(t, c.Results()["s1"].Result[0].Text, "found it")
	c.Reply("all done")
	h.screen.waitForText(t, "all done")
	parentID := h.app.ActiveThreadID()
	h.app.Close()

	list := store.List()
	require.Len(t, list, 2)
	var child threadstore.Summary
	for _, s := range list {
		if s.ID != parentID {
			child = s
		}
	}
	assert.Equal(t, parentID, child.ParentID)

	h2, _ := savingHarness(t, dir, nil)
	h2.app.ShowThreads()
	text := h2.screen.waitForText(t, "saved")
	assert.Regexp(t, `(?m)^  \d\. \S+  delegate  \[fast, saved, 4 messages, [^\]]+\]\n      \d\. \S+  look around  \[fast, saved, \d messages, [^\]]+\]$`, text, "the sub-agent is drawn under its parent")

	// Reopened, the sub-agent shows its parent's link in the list still.
	h2.app.SelectThread(child.ID)
	h2.screen.waitForText(t, "yield_to_parent: result delivered")
	h2.app.ShowThreads()
	text = h2.screen.waitForText(t, "idle")
	assert.Regexp(t, `(?m)^  \d\. \S+  delegate  \[fast, saved, 4 messages, [^\]]+\]\n\*     \d\. \S+`, text)
}

// A reopened thread continues from its compaction's summary, not from
// the history the summary replaced; its display keeps both.
func TestCompactedThreadReopensFromTheSummary(t *testing.T) {
	dir := t.TempDir()
	h, store := savingHarness(t, dir, nil)
	h.app.Send("task one")
	h.fake.Next(t).Reply("done one")
	h.screen.waitForText(t, "ready")
	h.app.Compact()
	h.fake.Next(t).Reply("THE SUMMARY")
	h.screen.waitForText(t, "▸ context compacted (2 messages summarized")
	h.app.Send("more")
	h.fake.Next(t).Reply("ok after")
	h.screen.waitFor(t, "the turn to end", func(s string) bool { return strings.Contains(s, "ok after") && strings.Contains(s, "ready") })
	id := h.app.ActiveThreadID()
	h.app.Close()

	saved, err := store.Load(id)
	require.NoError(t, err)
	require.Len(t, saved.Compactions, 1)
	assert.Equal(t, 2, saved.Compactions[0].After)
	assert.Equal(t, "THE SUMMARY", saved.Compactions[0].Summary)
	assert.Equal(t, 2, saved.Compactions[0].Replaced)

	h2, _ := savingHarness(t, dir, nil)
	h2.app.ShowThreads()
	h2.screen.waitForText(t, "saved, 4 messages")
	h2.app.Key("activate", h2.screen.lineOf(t, "saved, 4 messages"))
	text := h2.screen.waitForText(t, "ok after")
	assert.Less(t, strings.Index(text, "done one"), strings.Index(text, "▸ context compacted (2 messages summarized"))
	assert.Less(t, strings.Index(text, "▸ context compacted"), strings.Index(text, "more"))

	h2.app.Send("again")
	next := h2.fake.Next(t)
	msgs := next.Request.Messages
	require.Len(t, msgs, 3, "summary + more, the reply, the new message")
	assert.True(t, strings.HasPrefix(msgs[0].Content[0].Text, SummaryMarker))
	assert.Contains(t, msgs[0].Content[0].Text, "THE SUMMARY")
	for _, m := range msgs {
		for _, b := range m.Content {
			assert.NotContains(t, b.Text, "task one", "the replaced history is not sent again")
		}
	}
	next.Reply("fine")
	h2.screen.waitForText(t, "fine")
}

// A prefix that an open thread and a saved one share opens neither and
// names both (issue 24 item 5): the open thread is not preferred over the
// saved one the user may have meant.
func TestPrefixSharedByOpenAndSavedThreadsOpensNone(t *testing.T) {
	dir := t.TempDir()
	h, _ := savingHarness(t, dir, nil)
	saved := h.app.ActiveThreadID()
	h.app.Send("keep me")
	call := h.fake.Next(t)
	call.Reply("kept")
	h.screen.waitForText(t, "kept")
	h.app.Close()

	h2, _ := savingHarness(t, dir, nil)
	open := h2.app.ActiveThreadID()
	require.NotEqual(t, saved, open)
	require.Equal(t, saved[:8], open[:8], "UUIDv7 ids made within a minute share their first 8 characters")
	h2.app.SelectThread(saved[:8])
	h2.screen.waitFor(t, "ambiguity reported", func(string) bool {
		h2.screen.mu.Lock()
		defer h2.screen.mu.Unlock()
		return len(h2.screen.notes) > 0
	})
	h2.screen.mu.Lock()
	note := h2.screen.notes[0]
	h2.screen.mu.Unlock()
	assert.Contains(t, note, `2 threads start with "`+saved[:8]+`"`)
	assert.Contains(t, note, saved)
	assert.Equal(t, open, h2.app.ActiveThreadID(), "nothing was opened")

	h2.app.SelectThread(saved)
	h2.screen.waitFor(t, "the saved thread opened by its whole id", func(string) bool { return h2.app.ActiveThreadID() == saved })
}
