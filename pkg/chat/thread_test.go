package chat

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/chat/view"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

var testProfiles = []config.Profile{
	{Name: "fast", Provider: "anthropic", Model: "model-a"},
	{Name: "slow", Provider: "openai", Model: "model-b", BaseURL: "http://127.0.0.1:1/v1"},
}

type harness struct {
	app    *App
	screen *recordingScreen
	fake   *providertest.Fake
}

func newHarness(t *testing.T, reg *tools.Registry) *harness {
	t.Helper()
	if reg == nil {
		reg = tools.Default()
	}
	screen := newRecordingScreen()
	fake := providertest.New()
	app, err := NewApp(context.Background(), config.Options{Profiles: testProfiles}, AppDeps{
		Screen: screen, Tools: reg, Env: &capabilities.Environment{Name: "test", Cwd: t.TempDir()},
		NewProvider:  func(config.Profile) (provider.Provider, error) { return fake, nil },
		SystemPrompt: "be brief",
	})
	require.NoError(t, err)
	t.Cleanup(app.Close)
	screen.waitForText(t, "# New thread")
	return &harness{app: app, screen: screen, fake: fake}
}

func TestConversationWithToolCall(t *testing.T) {
	h := newHarness(t, nil)
	h.app.Send("rename this thread please")
	call := h.fake.Next(t)
	assert.Equal(t, "model-a", call.Request.Model)
	assert.Equal(t, "be brief", call.Request.System)
	assert.Equal(t, "rename this thread please", call.LastUserText())
	var names []string
	for _, tool := range call.Request.Tools {
		names = append(names, tool.Name)
	}
	assert.Contains(t, names, "thread_title")

	call.Text("Sure, ")
	h.screen.waitForText(t, "Sure, ")
	h.screen.waitForText(t, "streaming")
	call.Text("renaming.")
	call.ToolUse("tu_1", "thread_title", map[string]string{"title": "Renamed"})
	call.Stop(provider.StopToolUse)

	second := h.fake.Next(t)
	msgs := second.Request.Messages
	require.Len(t, msgs, 3)
	assert.Equal(t, provider.RoleAssistant, msgs[1].Role)
	assert.Equal(t, "Sure, renaming.", msgs[1].Content[0].Text)
	assert.Equal(t, provider.BlockToolUse, msgs[1].Content[1].Kind)
	result := msgs[2].Content[0]
	assert.Equal(t, provider.BlockToolResult, result.Kind)
	assert.Equal(t, "tu_1", result.ToolUseID)
	assert.False(t, result.IsError)
	assert.Contains(t, result.Result[0].Text, "Renamed")
	h.screen.waitForText(t, "# Renamed")
	h.screen.waitForText(t, "✓ thread_title: Renamed")

	second.Reply("Done.")
	text := h.screen.waitForText(t, "ready")
	assert.Contains(t, text, "Done.")
}

func TestExpandToolCallWithKey(t *testing.T) {
	h := newHarness(t, nil)
	h.app.Send("go")
	call := h.fake.Next(t)
	call.ToolUse("tu_1", "thread_title", map[string]string{"title": "T"})
	call.Stop(provider.StopToolUse)
	h.fake.Next(t).Reply("all done")
	h.screen.waitForText(t, "all done")
	h.screen.waitForText(t, "ready")
	line := h.screen.lineOf(t, "thread_title")
	h.app.Key(view.KeyToggle, line)
	text := h.screen.waitForText(t, "result:")
	assert.Contains(t, text, `{"title":"T"}`)
	h.app.Key(view.KeyActivate, line)
	h.screen.waitFor(t, "collapse", func(s string) bool { return !strings.Contains(s, "result:") })
}

func TestAbortWhileStreamingKeepsHistoryConsistent(t *testing.T) {
	h := newHarness(t, nil)
	h.app.Send("write a lot")
	call := h.fake.Next(t)
	call.Text("partial answer")
	call.ToolUse("tu_1", "thread_title", map[string]string{"title": "x"})
	h.screen.waitForText(t, "partial answer")
	h.app.Abort()
	<-call.Ended()
	h.screen.waitForText(t, "ℹ aborted")
	h.screen.waitForText(t, "ready")

	h.app.Send("next")
	next := h.fake.Next(t)
	msgs := next.Request.Messages
	require.Len(t, msgs, 3)
	assert.Equal(t, []provider.Block{provider.TextBlock("partial answer")}, msgs[1].Content, "the unfinished tool call is dropped")
	assert.Equal(t, "next", next.LastUserText())
	next.Reply("fine")
}

// blockingTool runs until its context ends.
func blockingTool(started chan<- struct{}) tools.Tool {
	return tools.MustTyped("wait", "waits", nil, func(ctx context.Context, _ tools.Call, _ struct{}) tools.Result {
		close(started)
		<-ctx.Done()
		return tools.Result{Text: "finished anyway"}
	})
}

func TestAbortWhileToolsRunAnswersEveryToolUse(t *testing.T) {
	started := make(chan struct{})
	reg, err := tools.NewRegistry(tools.ThreadTitle(), blockingTool(started))
	require.NoError(t, err)
	h := newHarness(t, reg)
	h.app.Send("do two things")
	call := h.fake.Next(t)
	call.ToolUse("tu_1", "thread_title", map[string]string{"title": "Two"})
	call.ToolUse("tu_2", "wait", map[string]string{})
	call.Stop(provider.StopToolUse)
	<-started
	// The title shows when the tool asks for it, before its result is
	// recorded: wait for the result, so abort finds tu_1 finished.
	h.screen.waitForText(t, "✓ thread_title")
	h.app.Abort()
	h.screen.waitForText(t, "✗ wait: aborted")
	h.screen.waitForText(t, "ready")

	h.app.Send("again")
	next := h.fake.Next(t)
	msgs := next.Request.Messages
	require.Len(t, msgs, 3)
	results := msgs[2].Content
	require.Len(t, results, 3, "two tool results, then the new user text")
	assert.Equal(t, "tu_1", results[0].ToolUseID)
	assert.False(t, results[0].IsError)
	assert.Equal(t, "tu_2", results[1].ToolUseID)
	assert.True(t, results[1].IsError)
	assert.Contains(t, results[1].Result[0].Text, "aborted")
	assert.Equal(t, "again", results[2].Text)
	next.Reply("ok")
}

func TestStreamErrorKeepsThreadUsable(t *testing.T) {
	h := newHarness(t, nil)
	h.app.Send("hello")
	call := h.fake.Next(t)
	call.Text("half")
	call.Fail(&provider.Error{Kind: provider.ErrConnection, Message: "stream ended early", Retryable: true})
	text := h.screen.waitForText(t, "stream ended early")
	assert.Contains(t, text, "half")
	h.screen.waitForText(t, "ready")
	h.app.Send("still there?")
	next := h.fake.Next(t)
	assert.Len(t, next.Request.Messages, 3)
	next.Reply("yes")
	h.screen.waitForText(t, "yes")
}

func TestMissingKeyNamesTheVariable(t *testing.T) {
	screen := newRecordingScreen()
	app, err := NewApp(context.Background(), config.Options{Profiles: testProfiles}, AppDeps{
		Screen: screen, Tools: tools.Default(), Env: &capabilities.Environment{Cwd: t.TempDir()},
		NewProvider: func(p config.Profile) (provider.Provider, error) {
			return nil, &provider.MissingKeyError{Profile: p.Name, EnvVar: "ANTHROPIC_API_KEY"}
		},
	})
	require.NoError(t, err)
	t.Cleanup(app.Close)
	app.Send("hi")
	screen.waitForText(t, "set the environment variable ANTHROPIC_API_KEY")
}

func TestMessagesSentDuringATurnAreQueued(t *testing.T) {
	h := newHarness(t, nil)
	h.app.Send("first")
	call := h.fake.Next(t)
	h.app.Send("second")
	h.screen.waitForText(t, "queued until the current turn ends")
	call.Reply("one")
	next := h.fake.Next(t)
	assert.Equal(t, "second", next.LastUserText())
	next.Reply("two")
	h.screen.waitFor(t, "no queue", func(s string) bool { return !strings.Contains(s, "queued") && strings.Contains(s, "two") })
}

func TestThreadsAndProfiles(t *testing.T) {
	h := newHarness(t, nil)
	first := h.app.ActiveThreadID()
	h.app.SetProfile("slow")
	h.screen.waitForText(t, "profile slow · openai model-b")
	h.app.SetProfile("nope")
	h.screen.waitFor(t, "notify", func(string) bool { h.screen.mu.Lock(); defer h.screen.mu.Unlock(); return len(h.screen.notes) > 0 })
	assert.Contains(t, h.screen.notes[0], `no profile "nope"; profiles: fast, slow`)

	h.app.NewThread()
	h.screen.waitFor(t, "new thread", func(string) bool { return h.app.ActiveThreadID() != first })
	h.app.ShowThreads()
	h.screen.waitForText(t, "2. ")
	line := h.screen.lineOf(t, "2. ") // most recently active first
	h.app.Key(view.KeyActivate, line)
	h.screen.waitFor(t, "switch back", func(string) bool { return h.app.ActiveThreadID() == first })
	h.screen.waitForText(t, "profile slow")
}

func TestProviderPanicIsReported(t *testing.T) {
	screen := newRecordingScreen()
	app, err := NewApp(context.Background(), config.Options{Profiles: testProfiles}, AppDeps{
		Screen: screen, Tools: tools.Default(), Env: &capabilities.Environment{Cwd: t.TempDir()},
		NewProvider: func(config.Profile) (provider.Provider, error) {
			return provider.ProviderFunc(func(context.Context, provider.Request, func(provider.Event)) (*provider.Response, error) {
				panic(errors.New("boom"))
			}), nil
		},
	})
	require.NoError(t, err)
	t.Cleanup(app.Close)
	app.Send("hi")
	screen.waitForText(t, "internal error: boom")
	screen.waitForText(t, "ready")
}

// Thread ids are UUIDv7: threads made within a minute share their first 8
// characters. A prefix that matches several threads names them instead of
// opening one; the short ids the list shows are unique.
func TestAmbiguousThreadPrefixNamesTheCandidates(t *testing.T) {
	h := newHarness(t, nil)
	first := h.app.ActiveThreadID()
	h.app.NewThread()
	h.screen.waitFor(t, "new thread", func(string) bool { return h.app.ActiveThreadID() != first })
	second := h.app.ActiveThreadID()
	require.Equal(t, first[:8], second[:8], "UUIDv7 ids made together share their first 8 characters")

	h.app.SelectThread(first[:8])
	h.screen.waitFor(t, "ambiguity reported", func(string) bool {
		h.screen.mu.Lock()
		defer h.screen.mu.Unlock()
		return len(h.screen.notes) > 0
	})
	h.screen.mu.Lock()
	note := h.screen.notes[0]
	h.screen.mu.Unlock()
	assert.Contains(t, note, `2 threads start with "`+first[:8]+`"`)
	assert.Equal(t, second, h.app.ActiveThreadID(), "nothing was opened")

	var ids []string
	h.screen.waitFor(t, "both summaries", func(string) bool { ids = h.app.ThreadIDs(); return len(ids) == 2 })
	assert.NotEqual(t, ids[0], ids[1])
	assert.True(t, strings.HasPrefix(first, ids[0]), "oldest first: %v", ids)
	assert.Contains(t, note, ids[0]+" (New thread)")
	h.app.SelectThread(ids[0])
	h.screen.waitFor(t, "switched by short id", func(string) bool { return h.app.ActiveThreadID() == first })

	h.app.ShowThreads()
	h.screen.waitForText(t, ids[1]+"  New thread")
}

// A tool call whose input was not valid JSON (the adapters wrap it under
// provider.InvalidArgumentsKey) tells the model so, quoting what it sent,
// and the block says it instead of drawing an empty line. (The harness's
// environment offers thread_title, not bash_command.)
func TestInvalidToolInputIsReportedToTheModelAndShown(t *testing.T) {
	h := newHarness(t, nil)
	h.app.Send("name this thread")
	call := h.fake.Next(t)
	call.ToolUse("tu_bad", "thread_title", map[string]string{provider.InvalidArgumentsKey: `{"title": "Files}`})
	call.Stop(provider.StopToolUse)

	next := h.fake.Next(t)
	msgs := next.Request.Messages
	result := msgs[len(msgs)-1].Content[0]
	assert.True(t, result.IsError)
	assert.Contains(t, result.Result[0].Text, `your input was not valid JSON (a JSON object was expected); it was: {"title": "Files}`)
	h.screen.waitForText(t, "thread_title: input was not valid JSON")
	next.Reply("sorry")
}
