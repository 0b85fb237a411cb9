package chat

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/approval"
	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/guard"
	"github.com/magenta-nvim/magenta/pkg/capabilities/memfs"
	"github.com/magenta-nvim/magenta/pkg/capabilities/memshell"
	"github.com/magenta-nvim/magenta/pkg/chat/view"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// agentHarness runs the real app and agent loop on a fake that answers
// every request by what it contains: the parent's requests go to the test
// (parent), each sub-agent's to child, concurrently.
type agentHarness struct {
	app    *App
	screen *recordingScreen
	env    *capabilities.Environment
	broker *approval.Broker
	parent chan *providertest.Call
}

func isSubagent(c *providertest.Call) bool {
	return strings.Contains(c.Request.System, "You are a sub-agent")
}

func newAgentHarness(t *testing.T, sub config.Subagents, reg *tools.Registry, child func(c *providertest.Call), more ...func(*AppDeps)) *agentHarness {
	t.Helper()
	broker := approval.NewBroker(nil)
	ws := t.TempDir()
	env := &capabilities.Environment{Name: "test", Cwd: ws, Files: memfs.New(),
		Shell: guard.NewShell(memshell.New(memshell.Script{Match: func(string) bool { return true }, Lines: []capabilities.OutputLine{{Text: "ran"}}}),
			guard.ShellOptions{Workspace: ws, Cwd: ws, Broker: broker, Remembered: guard.NewRemembered(),
				Check: func(command, _ string) guard.BashVerdict {
					return guard.BashVerdict{Allow: command == "ls", Reason: "not known to be safe"}
				}}),
	}
	return newAgentHarnessIn(t, env, broker, sub, reg, child, more...)
}

// newAgentHarnessIn is newAgentHarness in env, whose approvals go to
// broker.
func newAgentHarnessIn(t *testing.T, env *capabilities.Environment, broker *approval.Broker, sub config.Subagents, reg *tools.Registry, child func(c *providertest.Call), more ...func(*AppDeps)) *agentHarness {
	t.Helper()
	if reg == nil {
		reg = tools.Default()
	}
	if sub.MaxDepth == 0 {
		sub.MaxDepth = 1
	}
	h := &agentHarness{screen: newRecordingScreen(), env: env, broker: broker, parent: make(chan *providertest.Call, 16)}
	fake := providertest.New()
	fake.Serve(func(c *providertest.Call) {
		if isSubagent(c) {
			child(c)
			return
		}
		h.parent <- c
	})
	profiles := append([]config.Profile{}, testProfiles...)
	deps := AppDeps{
		Screen: h.screen, Tools: reg, Env: env, Broker: broker,
		NewProvider:  func(config.Profile) (provider.Provider, error) { return fake, nil },
		SystemPrompt: "be brief",
	}
	for _, f := range more {
		f(&deps)
	}
	app, err := NewApp(context.Background(), config.Options{Profiles: profiles, Subagents: sub}, deps)
	require.NoError(t, err)
	t.Cleanup(app.Close)
	h.app = app
	h.screen.waitForText(t, "# New thread")
	return h
}

func (h *agentHarness) nextParent(t *testing.T) *providertest.Call {
	t.Helper()
	select {
	case c := <-h.parent:
		return c
	case <-time.After(30 * time.Second):
		t.Fatal("no request of the parent thread")
		return nil
	}
}

// spawn makes the parent ask for sub-agents and returns the call.
func (h *agentHarness) spawn(t *testing.T, input map[string]any) {
	t.Helper()
	h.app.Send("split the work")
	c := h.nextParent(t)
	c.ToolUse("spawn_1", "spawn_subagents", input)
	c.Stop(provider.StopToolUse)
}

func resultText(t *testing.T, c *providertest.Call, id string) (string, bool) {
	t.Helper()
	b, ok := c.Results()[id]
	require.True(t, ok, "no result for %s", id)
	return b.Result[0].Text, b.IsError
}

func yieldTo(c *providertest.Call, answer string) {
	c.ToolUse("y", "yield_to_parent", map[string]string{"result": answer})
	c.Stop(provider.StopToolUse)
}

func toolNames(c *providertest.Call) []string {
	var names []string
	for _, s := range c.Request.Tools {
		names = append(names, s.Name)
	}
	return names
}

func agents(prompts ...string) []map[string]any {
	out := make([]map[string]any, len(prompts))
	for i, p := range prompts {
		out[i] = map[string]any{"prompt": p}
	}
	return out
}

func TestBlockingSpawnReturnsEveryResult(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]*providertest.Call{}
	h := newAgentHarness(t, config.Subagents{}, nil, func(c *providertest.Call) {
		mu.Lock()
		seen[c.FirstUserText()] = c
		mu.Unlock()
		c.Usage(provider.Usage{InputTokens: 1000, OutputTokens: 234})
		yieldTo(c, "answer to "+c.FirstUserText())
	})
	first := h.parentToolsAfterSend(t)
	assert.Contains(t, first, "spawn_subagents", "the user's thread may spawn")
	assert.Contains(t, first, "wait_for_subagents")
	assert.NotContains(t, first, "yield_to_parent", "only sub-agents yield")

	h.spawn(t, map[string]any{"agents": []map[string]any{{"prompt": "where is A", "agentType": "explore"}, {"prompt": "fix B"}}})
	next := h.nextParent(t)
	text, isErr := resultText(t, next, "spawn_1")
	assert.False(t, isErr)
	assert.Regexp(t, `(?s)## sub-agent \S+ \(explore\): done\nanswer to where is A\n\n## sub-agent \S+ \(subagent\): done\nanswer to fix B`, text)

	mu.Lock()
	explore, general := seen["where is A"], seen["fix B"]
	mu.Unlock()
	require.NotNil(t, explore)
	require.NotNil(t, general)
	assert.Equal(t, []string{"bash_command", "get_file", "yield_to_parent"}, toolNames(explore), "explore is read-only (of what this environment has; commands under the checker)")
	assert.Contains(t, explore.Request.System, "be brief", "magenta's prompt, then the sub-agent's")
	assert.Contains(t, explore.Request.System, "path:line")
	names := toolNames(general)
	assert.Contains(t, names, "yield_to_parent")
	assert.Contains(t, names, "edit_file")
	assert.NotContains(t, names, "spawn_subagents", "sub-agents are leaves at maxDepth 1")

	both := regexp.MustCompile(`▸ explore · where is A · done · \d+s · 1\.2k tokens\n  ▸ subagent · fix B · done · \d+s · 1\.2k tokens`)
	h.screen.waitFor(t, "both lines done", both.MatchString)
	next.Reply("both done")
	h.screen.waitForText(t, "both done")
}

// parentToolsAfterSend sends a first message, answers it, and returns the
// tools the parent was offered.
func (h *agentHarness) parentToolsAfterSend(t *testing.T) []string {
	t.Helper()
	h.app.Send("hello")
	c := h.nextParent(t)
	c.Reply("hi")
	h.screen.waitForText(t, "ready")
	return toolNames(c)
}

var idsRe = regexp.MustCompile(`sub-agent\(s\): (.*)\n`)

func TestNonBlockingSpawnThenWait(t *testing.T) {
	release := make(chan struct{})
	h := newAgentHarness(t, config.Subagents{}, nil, func(c *providertest.Call) {
		<-release
		yieldTo(c, "found "+c.FirstUserText())
	})
	h.spawn(t, map[string]any{"agents": agents("one", "two"), "blocking": false})
	next := h.nextParent(t)
	text, isErr := resultText(t, next, "spawn_1")
	require.False(t, isErr, text)
	m := idsRe.FindStringSubmatch(text)
	require.NotNil(t, m, text)
	ids := strings.Split(m[1], ", ")
	require.Len(t, ids, 2)
	h.screen.waitForText(t, "▸ subagent · one · running")

	next.ToolUse("wait_1", "wait_for_subagents", map[string]any{"ids": ids})
	next.Stop(provider.StopToolUse)
	h.screen.waitForText(t, "wait_for_subagents")
	close(release)
	last := h.nextParent(t)
	text, _ = resultText(t, last, "wait_1")
	assert.Contains(t, text, ids[0]+" (subagent): done\nfound one")
	assert.Contains(t, text, ids[1]+" (subagent): done\nfound two")

	last.ToolUse("wait_2", "wait_for_subagents", map[string]any{"ids": []string{"nope"}})
	last.Stop(provider.StopToolUse)
	bad := h.nextParent(t)
	text, isErr = resultText(t, bad, "wait_2")
	assert.True(t, isErr)
	assert.Contains(t, text, `"nope" is not one of your sub-agents`)
	bad.Reply("ok")
}

func TestConcurrencyLimitQueuesTheFifth(t *testing.T) {
	var mu sync.Mutex
	var log []string
	record := func(s string) { mu.Lock(); log = append(log, s); mu.Unlock() }
	releases := map[string]chan struct{}{}
	for _, p := range []string{"p1", "p2", "p3", "p4", "p5"} {
		releases[p] = make(chan struct{})
	}
	h := newAgentHarness(t, config.Subagents{MaxConcurrent: 4}, nil, func(c *providertest.Call) {
		p := c.FirstUserText()
		record("start " + p)
		<-releases[p]
		yieldTo(c, "done "+p)
	})
	h.spawn(t, map[string]any{"agents": agents("p1", "p2", "p3", "p4", "p5")})
	text := h.screen.waitFor(t, "four running, one queued", func(s string) bool {
		return strings.Count(s, "· running") == 4 && strings.Count(s, "· queued") == 1
	})
	assert.Contains(t, text, "▸ subagent · p5 · queued", "the fifth waits (spawned last)")
	record("release p1")
	close(releases["p1"])
	h.screen.waitFor(t, "the fifth running", func(s string) bool { return strings.Contains(s, "▸ subagent · p5 · running") })
	for _, p := range []string{"p2", "p3", "p4", "p5"} {
		close(releases[p])
	}
	next := h.nextParent(t)
	text, _ = resultText(t, next, "spawn_1")
	assert.Equal(t, 5, strings.Count(text, "): done"))
	mu.Lock()
	defer mu.Unlock()
	at := func(s string) int {
		for i, l := range log {
			if l == s {
				return i
			}
		}
		return -1
	}
	assert.Greater(t, at("start p5"), at("release p1"), "the fifth starts only after one finished: %v", log)
	next.Reply("ok")
}

func TestSubagentErrorAndNeverYielding(t *testing.T) {
	var mu sync.Mutex
	requests := map[string]int{}
	h := newAgentHarness(t, config.Subagents{}, nil, func(c *providertest.Call) {
		p := c.FirstUserText()
		mu.Lock()
		requests[p]++
		n := requests[p]
		mu.Unlock()
		switch {
		case p == "fail":
			c.Fail(errors.New("upstream exploded"))
		case n == 1:
			c.Reply("I think it is in main.go")
		default:
			c.Reply("final: main.go:12 (reminded by: " + c.LastUserText() + ")")
		}
	})
	h.spawn(t, map[string]any{"agents": agents("fail", "chatty")})
	next := h.nextParent(t)
	text, isErr := resultText(t, next, "spawn_1")
	assert.False(t, isErr, "one of them succeeded")
	assert.Regexp(t, `\(subagent\): error\nthe request failed: upstream exploded`, text)
	assert.Contains(t, text, "(subagent): done\nfinal: main.go:12 (reminded by: "+reminderText+")",
		"a sub-agent that never yields is reminded once; then its last text is its result")
	mu.Lock()
	assert.Equal(t, 2, requests["chatty"], "reminded exactly once")
	mu.Unlock()
	h.screen.waitForText(t, "▸ subagent · fail · error")
	next.Reply("ok")
}

func TestAbortingTheParentAbortsItsSubagents(t *testing.T) {
	arrived := make(chan *providertest.Call, 8)
	h := newAgentHarness(t, config.Subagents{MaxConcurrent: 1}, nil, func(c *providertest.Call) {
		arrived <- c
		// Never answers: the stream stays open until it is cancelled.
	})
	h.spawn(t, map[string]any{"agents": agents("slow one", "queued one")})
	var running *providertest.Call
	select {
	case running = <-arrived:
	case <-time.After(30 * time.Second):
		t.Fatal("no sub-agent started")
	}
	assert.Equal(t, "slow one", running.FirstUserText())
	h.screen.waitFor(t, "one running, one queued", func(s string) bool {
		return strings.Contains(s, "slow one · running") && strings.Contains(s, "queued one · queued")
	})
	h.app.Abort()
	h.screen.waitFor(t, "both aborted", func(s string) bool {
		return strings.Contains(s, "slow one · aborted") && strings.Contains(s, "queued one · aborted")
	})
	select {
	case <-running.Ended():
	case <-time.After(30 * time.Second):
		t.Fatal("the running sub-agent's request was not cancelled")
	}
	select {
	case c := <-arrived:
		t.Fatalf("the queued sub-agent started after the abort (on the place the first one freed): %q", c.FirstUserText())
	default:
	}

	// Later turns are unaffected; sub-agents spawned without blocking are
	// aborted with the parent too, even between turns.
	h.app.Send("again")
	c := h.nextParent(t)
	c.ToolUse("spawn_2", "spawn_subagents", map[string]any{"agents": agents("background"), "blocking": false})
	c.Stop(provider.StopToolUse)
	h.nextParent(t).Reply("started it")
	h.screen.waitFor(t, "idle with a sub-agent running", func(s string) bool {
		return strings.Contains(s, "background · running") && strings.Contains(s, "ready")
	})
	h.app.Abort()
	h.screen.waitForText(t, "background · aborted")
}

func TestAbortingOneSubagentFromItsView(t *testing.T) {
	h := newAgentHarness(t, config.Subagents{}, nil, func(c *providertest.Call) {
		if c.FirstUserText() == "quick" {
			yieldTo(c, "quick answer")
		}
	})
	h.spawn(t, map[string]any{"agents": agents("quick", "stuck")})
	h.screen.waitForText(t, "stuck · running")
	// <CR> on its line opens the sub-agent's thread.
	h.app.Key(view.KeyActivate, h.screen.lineOf(t, "▸ subagent · stuck"))
	h.screen.waitForText(t, "subagent sub-agent of: split the work")
	h.screen.waitForText(t, "## user\nstuck")
	h.app.Abort()
	h.screen.waitForText(t, "ℹ aborted")
	// The header links back to the parent.
	h.app.Key(view.KeyActivate, h.screen.lineOf(t, "sub-agent of:"))
	h.screen.waitForText(t, "## user\nsplit the work")
	next := h.nextParent(t)
	text, _ := resultText(t, next, "spawn_1")
	assert.Contains(t, text, "(subagent): done\nquick answer")
	assert.Contains(t, text, "(subagent): aborted\nthe sub-agent was aborted")
	next.Reply("ok")
}

func TestSubagentApprovalAnsweredFromTheParentsView(t *testing.T) {
	h := newAgentHarness(t, config.Subagents{}, nil, func(c *providertest.Call) {
		if len(c.Results()) == 0 {
			c.ToolUse("b1", "bash_command", map[string]string{"command": "make deploy"})
			c.Stop(provider.StopToolUse)
			return
		}
		out, _ := json2text(c)
		yieldTo(c, "bash said: "+out)
	})
	h.spawn(t, map[string]any{"agents": agents("deploy it")})
	text := h.screen.waitForText(t, "deploy it · waiting for approval")
	assert.Contains(t, text, "┃ make deploy")
	h.screen.waitForNote(t, "waiting for your approval: make deploy")
	h.app.Key(view.KeyActivate, h.screen.lineOf(t, "> YES"))
	next := h.nextParent(t)
	result, _ := resultText(t, next, "spawn_1")
	assert.Contains(t, result, "bash said: ")
	assert.Contains(t, result, "ran")
	next.Reply("ok")
}

func json2text(c *providertest.Call) (string, bool) {
	for _, b := range c.Results() {
		return b.Result[0].Text, b.IsError
	}
	return "", false
}

// A sub-agent's tools get the parent's environment: the same FileIO and
// Shell values (so the same workspace, or the same container, and the
// same permission decorators with the session's ALWAYS answers), with
// spawning off at the depth limit.
func TestSubagentSharesTheParentsEnvironment(t *testing.T) {
	var mu sync.Mutex
	envs := map[string]*capabilities.Environment{}
	probe := tools.MustTyped("probe", "records the environment", nil, func(_ context.Context, call tools.Call, p struct {
		Who string `json:"who"`
	}) tools.Result {
		mu.Lock()
		envs[p.Who] = call.Env
		mu.Unlock()
		return tools.Result{Text: "ok"}
	})
	reg := tools.Default().With(probe)
	h := newAgentHarness(t, config.Subagents{}, reg, func(c *providertest.Call) {
		if len(c.Results()) == 0 {
			c.ToolUse("p", "probe", map[string]string{"who": "child"})
			c.Stop(provider.StopToolUse)
			return
		}
		yieldTo(c, "probed")
	})
	h.app.Send("probe")
	c := h.nextParent(t)
	c.ToolUse("p", "probe", map[string]string{"who": "parent"})
	c.ToolUse("spawn_1", "spawn_subagents", map[string]any{"agents": agents("probe too")})
	c.Stop(provider.StopToolUse)
	h.nextParent(t).Reply("ok")
	mu.Lock()
	defer mu.Unlock()
	parent, child := envs["parent"], envs["child"]
	require.NotNil(t, parent)
	require.NotNil(t, child)
	assert.Same(t, h.env.Files.(*memfs.FS), child.Files.(*memfs.FS))
	assert.Same(t, h.env.Shell.(*guard.Shell), child.Shell.(*guard.Shell))
	assert.Equal(t, parent.Cwd, child.Cwd)
	assert.Equal(t, parent.Name, child.Name)
	assert.True(t, parent.Threads)
	assert.False(t, child.Threads)
}

func TestUnknownAgentTypeIsAClearError(t *testing.T) {
	h := newAgentHarness(t, config.Subagents{Agents: map[string]config.AgentType{"docs": {Description: "writes docs"}}}, nil, func(c *providertest.Call) {})
	h.spawn(t, map[string]any{"agents": []map[string]any{{"prompt": "x", "agentType": "wizard"}}})
	next := h.nextParent(t)
	text, isErr := resultText(t, next, "spawn_1")
	assert.True(t, isErr)
	assert.Contains(t, text, `no type "wizard"; the types are subagent, explore, fast, docs`)
	var desc string
	for _, s := range next.Request.Tools {
		if s.Name == "spawn_subagents" {
			desc = s.Description
		}
	}
	assert.Contains(t, desc, "- `docs`: writes docs", "the user's types are described to the model")
	assert.Contains(t, desc, fmt.Sprintf("At most %d run at once", config.DefaultMaxConcurrentSubagents))
	next.Reply("ok")
}

// Context files named in the spawn are read through the parent's FileIO
// and open the sub-agent's task; the fast type runs on fastProfile.
func TestContextFilesAndTheFastProfile(t *testing.T) {
	var mu sync.Mutex
	var got *providertest.Call
	h := newAgentHarness(t, config.Subagents{FastProfile: "slow"}, nil, func(c *providertest.Call) {
		mu.Lock()
		got = c
		mu.Unlock()
		yieldTo(c, "read it")
	})
	h.env.Files.(*memfs.FS).Put(h.env.Cwd+"/notes.txt", []byte("the secret sauce\n"))
	h.spawn(t, map[string]any{"agents": []map[string]any{{"prompt": "summarise", "agentType": "fast", "contextFiles": []string{"notes.txt"}}}})
	next := h.nextParent(t)
	text, _ := resultText(t, next, "spawn_1")
	assert.Contains(t, text, "(fast): done\nread it")
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, "model-b", got.Request.Model, "fast runs on subagents.fastProfile")
	assert.Equal(t, "Context file notes.txt:\n```\nthe secret sauce\n```\n\nsummarise", got.FirstUserText())
	next.Reply("ok")
}

// With maxDepth 2 a sub-agent may spawn; its own sub-agents may not.
func TestDepthLimit(t *testing.T) {
	var mu sync.Mutex
	offered := map[string][]string{}
	h := newAgentHarness(t, config.Subagents{MaxDepth: 2}, nil, func(c *providertest.Call) {
		p := c.FirstUserText()
		mu.Lock()
		offered[p] = toolNames(c)
		mu.Unlock()
		if p == "middle" && len(c.Results()) == 0 {
			c.ToolUse("s", "spawn_subagents", map[string]any{"agents": agents("leaf")})
			c.Stop(provider.StopToolUse)
			return
		}
		if p == "middle" {
			text := c.Results()["s"].Result[0].Text
			yieldTo(c, "leaf said: "+text[strings.Index(text, "\n")+1:])
			return
		}
		yieldTo(c, "leaf answer")
	})
	h.spawn(t, map[string]any{"agents": agents("middle")})
	next := h.nextParent(t)
	text, _ := resultText(t, next, "spawn_1")
	assert.Contains(t, text, "(subagent): done\nleaf said: leaf answer")
	mu.Lock()
	assert.Contains(t, offered["middle"], "spawn_subagents")
	assert.NotContains(t, offered["leaf"], "spawn_subagents")
	mu.Unlock()
	next.Reply("ok")
}

// waitForNote waits until a notification containing sub was given (the
// recording screen's NotifyIfHidden always notifies).
func (s *recordingScreen) waitForNote(t *testing.T, sub string) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		s.mu.Lock()
		ch, notes := s.changed, strings.Join(s.notes, "\n")
		s.mu.Unlock()
		if strings.Contains(notes, sub) {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("no notification with %q; got:\n%s", sub, notes)
		}
	}
}

// Closing the app while sub-agents run (and the parent waits for them)
// stops everything.
func TestCloseWithSubagentsRunning(t *testing.T) {
	h := newAgentHarness(t, config.Subagents{MaxConcurrent: 1}, nil, func(c *providertest.Call) {})
	h.spawn(t, map[string]any{"agents": agents("forever", "queued")})
	h.screen.waitForText(t, "forever · running")
	closed := make(chan struct{})
	go func() {
		h.app.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(30 * time.Second):
		t.Fatal("Close did not return")
	}
}

// Places are given back once each, whether the sub-agent ran or was
// aborted while queued, so later spawns still run (a leaked place would
// queue them forever; a doubled one would break the limit).
func TestLimiterGivesPlacesBackOnce(t *testing.T) {
	limits := newLimiter(1)
	first := limits.take()
	second := limits.take()
	limits.giveBack(second) // aborted while queued
	limits.giveBack(first)
	limits.giveBack(first) // twice: nothing more
	third := limits.take()
	select {
	case <-third.ready:
	default:
		t.Fatal("the place was not given back")
	}
	fourth := limits.take()
	select {
	case <-fourth.ready:
		t.Fatal("a second place appeared from a repeated give-back")
	default:
	}
}

// Terminating a blocking spawn call (x on it) aborts the sub-agents it
// started; the parent's turn goes on with "aborted" results.
func TestTerminatingABlockingSpawnAbortsItsSubagents(t *testing.T) {
	h := newAgentHarness(t, config.Subagents{}, nil, func(c *providertest.Call) {})
	h.spawn(t, map[string]any{"agents": agents("endless")})
	h.screen.waitForText(t, "endless · running")
	h.app.Key(view.KeyTerminate, h.screen.lineOf(t, "spawn_subagents"))
	next := h.nextParent(t)
	text, isErr := resultText(t, next, "spawn_1")
	assert.True(t, isErr)
	assert.Contains(t, text, "aborted")
	h.screen.waitForText(t, "endless · aborted")
	next.Reply("ok")
}

// A sub-agent of a thread made in another environment gets that thread's
// environment and system prompt, not the app's defaults.
func TestSubagentInheritsItsThreadsEnvironmentAndPrompt(t *testing.T) {
	var mu sync.Mutex
	var system string
	h := newAgentHarness(t, config.Subagents{}, nil, func(c *providertest.Call) {
		mu.Lock()
		system = c.Request.System
		mu.Unlock()
		yieldTo(c, "ok")
	})
	other := &capabilities.Environment{Name: "docker:dev", Cwd: "/work", Files: memfs.New()}
	// The app's inbox is in order: the spawn's message goes to this thread.
	h.app.NewThreadIn(other, "you work in the container dev")
	h.spawn(t, map[string]any{"agents": agents("look around")})
	h.nextParent(t).Reply("ok")
	mu.Lock()
	defer mu.Unlock()
	assert.True(t, strings.HasPrefix(system, "you work in the container dev"), system)
	assert.NotContains(t, system, "be brief", "not the app's default prompt")
}
