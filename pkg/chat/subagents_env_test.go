package chat

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/approval"
	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/memfs"
	"github.com/magenta-nvim/magenta/pkg/capabilities/memshell"
	"github.com/magenta-nvim/magenta/pkg/chat/view"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
	"github.com/magenta-nvim/magenta/pkg/threadstore"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// fakeRemote is an OpenEnv that makes in-memory environments: one FS and
// one shell per environment it is asked for, recorded by label, and
// failures for the labels in fail. It answers from another goroutine, as
// the host's does.
type fakeRemote struct {
	mu     sync.Mutex
	asked  []threadstore.Env
	envs   map[string]*capabilities.Environment
	fail   map[string]error
	prefix map[string]string // files each made environment starts with, by path
	closed map[string]int    // Close calls, by label
}

func newFakeRemote() *fakeRemote {
	return &fakeRemote{envs: map[string]*capabilities.Environment{}, fail: map[string]error{}, prefix: map[string]string{}, closed: map[string]int{}}
}

func (f *fakeRemote) open(cfg threadstore.Env, done func(*capabilities.Environment, string, error)) {
	f.mu.Lock()
	f.asked = append(f.asked, cfg)
	label := cfg.Label()
	err := f.fail[label]
	var env *capabilities.Environment
	if err == nil {
		fs := memfs.New()
		for p, data := range f.prefix {
			fs.Put(p, []byte(data))
		}
		cwd := cfg.Cwd
		if cwd == "" {
			cwd = "/home/remote"
		}
		env = &capabilities.Environment{Name: label, Cwd: cwd, Files: fs,
			Shell: memshell.New(memshell.Script{Match: func(string) bool { return true }, Lines: []capabilities.OutputLine{{Text: "ran in " + label}}})}
		env.Close = func() error {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.closed[label]++
			return nil
		}
		f.envs[label] = env
	}
	f.mu.Unlock()
	go func() {
		if err != nil {
			done(nil, "", err)
			return
		}
		done(env, "you work in "+label, nil)
	}()
}

// closes is how many times the environment labelled label was closed.
func (f *fakeRemote) closes(label string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.closed[label]
}

func (f *fakeRemote) requests() []threadstore.Env {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]threadstore.Env(nil), f.asked...)
}

// newEnvHarness is newAgentHarness with setup()'s environments and the
// fake OpenEnv (nil: a front end without one, as the headless run).
func newEnvHarness(t *testing.T, envs map[string]config.Environment, remote *fakeRemote, child func(c *providertest.Call)) *agentHarness {
	t.Helper()
	broker := approval.NewBroker(nil)
	ws := t.TempDir()
	env := &capabilities.Environment{Name: "local", Cwd: ws, Files: memfs.New(),
		Shell: memshell.New(memshell.Script{Match: func(string) bool { return true }, Lines: []capabilities.OutputLine{{Text: "ran locally"}}})}
	h := &agentHarness{screen: newRecordingScreen(), env: env, broker: broker, parent: make(chan *providertest.Call, 16)}
	fake := providertest.New()
	fake.Serve(func(c *providertest.Call) {
		if isSubagent(c) {
			child(c)
			return
		}
		h.parent <- c
	})
	deps := AppDeps{
		Screen: h.screen, Tools: tools.Default(), Env: env, Broker: broker,
		NewProvider:  func(config.Profile) (provider.Provider, error) { return fake, nil },
		SystemPrompt: "be brief",
	}
	if remote != nil {
		deps.OpenEnv = remote.open
	}
	app, err := NewApp(context.Background(), config.Options{
		Profiles: append([]config.Profile{}, testProfiles...), Subagents: config.Subagents{MaxDepth: 1}, Environments: envs,
	}, deps)
	require.NoError(t, err)
	t.Cleanup(app.Close)
	h.app = app
	h.screen.waitForText(t, "# New thread")
	return h
}

// frameOf is the last frame published for key, as text.
func (s *recordingScreen) frameOf(key string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f := s.frames[key]; f != nil {
		return strings.Join(f.Texts(), "\n")
	}
	return ""
}

// runCommandThenYield is a sub-agent that runs one command, reads one
// file and yields what both gave.
func runCommandThenYield(file string) func(c *providertest.Call) {
	return func(c *providertest.Call) {
		if len(c.Results()) == 0 {
			c.ToolUse("b", "bash_command", map[string]string{"command": "pwd"})
			c.ToolUse("g", "get_file", map[string]string{"path": file})
			c.Stop(provider.StopToolUse)
			return
		}
		out := c.Results()["b"].Result[0].Text
		got := c.Results()["g"]
		yieldTo(c, "shell: "+out+"\nfile: "+got.Result[0].Text)
	}
}

// A sub-agent sent to one of setup()'s environments works there: its
// commands run in that environment's shell, its files and context files
// come from its FileIO, its system prompt and header name it, and nobody
// is asked.
func TestSubagentInANamedEnvironment(t *testing.T) {
	remote := newFakeRemote()
	remote.prefix["/srv/app/README"] = "remote readme\n"
	var mu sync.Mutex
	var childCall *providertest.Call
	run := runCommandThenYield("/srv/app/README")
	h := newEnvHarness(t, map[string]config.Environment{"box": {Type: config.EnvSSH, Host: "devbox", Cwd: "/srv/app"}}, remote, func(c *providertest.Call) {
		mu.Lock()
		if childCall == nil {
			childCall = c
		}
		mu.Unlock()
		run(c)
	})
	h.spawn(t, map[string]any{"agents": []map[string]any{{"prompt": "look there", "environment": "box", "contextFiles": []string{"README"}}}})
	next := h.nextParent(t)
	text, isErr := resultText(t, next, "spawn_1")
	require.False(t, isErr, text)
	assert.Contains(t, text, "(subagent): done\nshell: ")
	assert.Contains(t, text, "ran in ssh:devbox", "the command ran in the named environment's shell")
	assert.Contains(t, text, "remote readme", "get_file read the named environment's files")
	assert.NotContains(t, text, "ran locally")
	assert.Equal(t, []threadstore.Env{{Type: "ssh", Host: "devbox", Cwd: "/srv/app"}}, remote.requests())
	assert.Empty(t, h.broker.Pending(""), "a named environment is not asked about")

	mu.Lock()
	first := childCall
	mu.Unlock()
	require.NotNil(t, first)
	assert.True(t, strings.HasPrefix(first.Request.System, "you work in ssh:devbox"), "the environment's own system prompt: %s", first.Request.System)
	assert.NotContains(t, first.Request.System, "be brief")
	assert.Equal(t, "Context file README:\n```\nremote readme\n```\n\nlook there", first.FirstUserText(), "context files are read where the sub-agent works")

	h.screen.waitForText(t, "▸ subagent · look there · in box · done")
	id := subagentIDs(t, text)[0]
	assert.Contains(t, h.screen.frameOf(id), "\nbox: ssh:devbox · /srv/app\n", "the sub-agent's header says where it works")

	var desc string
	for _, s := range next.Request.Tools {
		if s.Name == "spawn_subagents" {
			desc = s.Description
		}
	}
	assert.Contains(t, desc, "  - `box`: the machine devbox over SSH, in /srv/app\n", "the model is told the configured names")
	next.Reply("ok")

	// The environment made for the sub-agent (an ssh connection and its
	// remote agent) is released with the sub-agent's thread, once.
	assert.Zero(t, remote.closes("ssh:devbox"), "closed while its sub-agent lives")
	h.app.Close()
	require.Eventually(t, func() bool { return remote.closes("ssh:devbox") == 1 }, 10*time.Second, 5*time.Millisecond)
}

// A sub-agent in the parent's environment next to one elsewhere keeps
// the parent's: no environment is made for it and its line names none.
func TestSubagentWithoutEnvironmentStaysWithItsParent(t *testing.T) {
	remote := newFakeRemote()
	h := newEnvHarness(t, map[string]config.Environment{"box": {Type: config.EnvDocker, Container: "dev"}}, remote, runCommandThenYield("/nope"))
	h.spawn(t, map[string]any{"agents": []map[string]any{{"prompt": "here"}, {"prompt": "there", "environment": "box"}}})
	next := h.nextParent(t)
	text, _ := resultText(t, next, "spawn_1")
	parts := strings.SplitN(text, "\n\n## ", 2)
	require.Len(t, parts, 2, text)
	assert.Contains(t, parts[0], "ran locally")
	assert.Contains(t, parts[1], "ran in docker:dev")
	assert.Len(t, remote.requests(), 1)
	screen := h.screen.waitForText(t, "▸ subagent · there · in box · done")
	assert.Contains(t, screen, "▸ subagent · here · done")
	next.Reply("ok")
}

// A free-form environment is asked about in the spawn call; approved,
// the sub-agent runs there.
func TestFreeFormEnvironmentAsksAndRunsWhenApproved(t *testing.T) {
	remote := newFakeRemote()
	h := newEnvHarness(t, nil, remote, runCommandThenYield("/nope"))
	h.spawn(t, map[string]any{"agents": []map[string]any{{"prompt": "build", "environment": "ssh:me@devbox:/srv/app"}}})
	screen := h.screen.waitForText(t, "Start sub-agent in ssh:me@devbox:/srv/app?")
	assert.Contains(t, screen, "not one of your environments")
	assert.NotContains(t, screen, "> ALWAYS", "asked every time")
	pending := h.broker.Pending("")
	require.Len(t, pending, 1)
	assert.Equal(t, KindEnvironment, pending[0].Kind)
	assert.Empty(t, remote.requests(), "nothing is made before the user answers")
	h.app.Key(view.KeyActivate, h.screen.lineOf(t, "> YES"))
	next := h.nextParent(t)
	text, isErr := resultText(t, next, "spawn_1")
	require.False(t, isErr, text)
	assert.Contains(t, text, "ran in ssh:me@devbox")
	assert.Equal(t, []threadstore.Env{{Type: "ssh", Host: "me@devbox", Cwd: "/srv/app"}}, remote.requests())
	h.screen.waitForText(t, "▸ subagent · build · in ssh:me@devbox:/srv/app · done")
	next.Reply("ok")
}

// Declined, the sub-agent is not started, the result says so, and its
// siblings run.
func TestFreeFormEnvironmentDeclined(t *testing.T) {
	remote := newFakeRemote()
	var mu sync.Mutex
	var started []string
	h := newEnvHarness(t, nil, remote, func(c *providertest.Call) {
		mu.Lock()
		started = append(started, c.FirstUserText())
		mu.Unlock()
		yieldTo(c, "did "+c.FirstUserText())
	})
	h.spawn(t, map[string]any{"agents": []map[string]any{{"prompt": "sneak", "environment": "docker:prod-db"}, {"prompt": "stay"}}})
	h.screen.waitForText(t, "Start sub-agent in docker:prod-db?")
	h.app.Key(view.KeyActivate, h.screen.lineOf(t, "> NO"))
	next := h.nextParent(t)
	text, isErr := resultText(t, next, "spawn_1")
	assert.False(t, isErr, "one of them ran")
	assert.Contains(t, text, "(subagent): error\nagents[0] was not started: the user declined to start a sub-agent in docker:prod-db")
	assert.Contains(t, text, "(subagent): done\ndid stay")
	assert.Empty(t, remote.requests(), "nothing was made for it")
	mu.Lock()
	assert.Equal(t, []string{"stay"}, started)
	mu.Unlock()
	h.screen.waitForText(t, "▸ subagent · sneak · in docker:prod-db · error")
	id := subagentIDs(t, text)[0]
	assert.Contains(t, h.screen.frameOf(id), "docker:prod-db · not started: agents[0] was not started: the user declined")
	assert.Equal(t, threadstore.Env{Type: "local"}, envConfig(notStartedEnv("docker:prod-db", "declined")),
		"a thread that never started is not saved as one in the declined container")
	next.Reply("ok")
}

// An unknown name is an error that lists the configured names and the
// free-form values; nothing starts and nobody is asked.
func TestUnknownEnvironmentListsTheNames(t *testing.T) {
	remote := newFakeRemote()
	h := newEnvHarness(t, map[string]config.Environment{"box": {Type: config.EnvDocker, Container: "dev"}, "gpu": {Type: config.EnvSSH, Host: "gpu"}}, remote,
		func(c *providertest.Call) { yieldTo(c, "ran") })
	h.spawn(t, map[string]any{"agents": []map[string]any{{"prompt": "ok"}, {"prompt": "x", "environment": "cloud"}}})
	next := h.nextParent(t)
	text, isErr := resultText(t, next, "spawn_1")
	assert.True(t, isErr)
	assert.Contains(t, text, `agents[1].environment: no environment "cloud"; the user's environments are box, gpu; otherwise write docker:<container>[:<dir>] or ssh:<host>[:<dir>], which the user is asked to approve`)
	assert.Empty(t, remote.requests())
	assert.NotContains(t, h.screen.text(), "▸ subagent", "no sub-agent started")
	next.Reply("ok")
}

// Malformed free-form values, and any environment without configured
// names, are refused before anything is asked.
func TestMalformedEnvironmentIsRefused(t *testing.T) {
	remote := newFakeRemote()
	h := newEnvHarness(t, nil, remote, func(c *providertest.Call) { yieldTo(c, "ran") })
	h.spawn(t, map[string]any{"agents": []map[string]any{{"prompt": "x", "environment": "ssh:-oProxyCommand=evil"}}})
	next := h.nextParent(t)
	text, isErr := resultText(t, next, "spawn_1")
	assert.True(t, isErr)
	assert.Contains(t, text, `agents[0].environment: "ssh:-oProxyCommand=evil": "-oProxyCommand=evil" is not a host`)
	next.ToolUse("spawn_2", "spawn_subagents", map[string]any{"agents": []map[string]any{{"prompt": "x", "environment": "box"}}})
	next.Stop(provider.StopToolUse)
	last := h.nextParent(t)
	text, isErr = resultText(t, last, "spawn_2")
	assert.True(t, isErr)
	assert.Contains(t, text, `no environment "box"; the user configured no environments`)
	assert.Empty(t, h.broker.Pending(""))
	assert.Empty(t, remote.requests())
	last.Reply("ok")
}

// An environment that cannot be made fails its sub-agent with the error;
// its siblings finish.
func TestEnvironmentThatCannotBeMadeFailsOnlyItsSubagent(t *testing.T) {
	remote := newFakeRemote()
	remote.fail["ssh:devbox"] = errors.New("ssh devbox: unreachable: connection timed out")
	h := newEnvHarness(t, map[string]config.Environment{"box": {Type: config.EnvSSH, Host: "devbox"}, "ci": {Type: config.EnvDocker, Container: "ci"}}, remote,
		func(c *providertest.Call) { yieldTo(c, "did "+c.FirstUserText()) })
	h.spawn(t, map[string]any{"agents": []map[string]any{{"prompt": "here"}, {"prompt": "far", "environment": "box"}, {"prompt": "near", "environment": "ci"}}})
	next := h.nextParent(t)
	text, isErr := resultText(t, next, "spawn_1")
	assert.False(t, isErr)
	assert.Contains(t, text, "(subagent): done\ndid here")
	assert.Contains(t, text, "(subagent): error\nagents[1] was not started in box: ssh devbox: unreachable: connection timed out")
	assert.Contains(t, text, "(subagent): done\ndid near")
	h.screen.waitForText(t, "▸ subagent · far · in box · error")
	next.Reply("ok")
}

// A named local environment is the editor's workspace, for a sub-agent
// of a thread that works elsewhere.
func TestNamedLocalEnvironmentFromAContainerThread(t *testing.T) {
	remote := newFakeRemote()
	h := newEnvHarness(t, map[string]config.Environment{"home": {Type: config.EnvLocal}}, remote, runCommandThenYield("/nope"))
	other := &capabilities.Environment{Name: "docker:dev", Cwd: "/work", Files: memfs.New(),
		Shell: memshell.New(memshell.Script{Match: func(string) bool { return true }, Lines: []capabilities.OutputLine{{Text: "ran in the container"}}})}
	h.app.NewThreadIn(other, "you work in the container dev")
	h.spawn(t, map[string]any{"agents": []map[string]any{{"prompt": "go home", "environment": "home"}, {"prompt": "stay"}}})
	next := h.nextParent(t)
	text, _ := resultText(t, next, "spawn_1")
	parts := strings.SplitN(text, "\n\n## ", 2)
	require.Len(t, parts, 2, text)
	assert.Contains(t, parts[0], "ran locally")
	assert.Contains(t, parts[1], "ran in the container")
	assert.Empty(t, remote.requests(), "the local environment is at hand")
	next.Reply("ok")
}

// Aborting while the user is asked stops the spawn: nothing starts and
// nothing is made.
func TestAbortWhileAskingStartsNothing(t *testing.T) {
	remote := newFakeRemote()
	h := newEnvHarness(t, nil, remote, func(c *providertest.Call) { yieldTo(c, "ran") })
	h.spawn(t, map[string]any{"agents": []map[string]any{{"prompt": "x", "environment": "ssh:devbox"}, {"prompt": "y"}}})
	h.screen.waitForText(t, "Start sub-agent in ssh:devbox?")
	h.app.Abort()
	screen := h.screen.waitFor(t, "the question withdrawn, the turn over", func(s string) bool {
		return !strings.Contains(s, "Start sub-agent in") && strings.Contains(s, "ready")
	})
	assert.Contains(t, screen, "✗ spawn_subagents: aborted")
	h.screen.waitFor(t, "the question withdrawn from the broker", func(string) bool { return len(h.broker.Pending("")) == 0 })
	assert.Empty(t, remote.requests())
	assert.NotContains(t, h.screen.text(), "▸ subagent")
}

// A front end that cannot make environments (the headless run, ACP)
// refuses every other one before asking anything; a named local one
// still works.
func TestNoOpenEnvRefusesOtherEnvironments(t *testing.T) {
	h := newEnvHarness(t, map[string]config.Environment{"box": {Type: config.EnvDocker, Container: "dev"}, "home": {Type: config.EnvLocal}}, nil,
		func(c *providertest.Call) { yieldTo(c, "ran") })
	h.spawn(t, map[string]any{"agents": []map[string]any{{"prompt": "x", "environment": "ssh:devbox"}}})
	next := h.nextParent(t)
	text, isErr := resultText(t, next, "spawn_1")
	assert.True(t, isErr)
	assert.Contains(t, text, "agents[0].environment: ssh:devbox: this front end cannot make other environments")
	assert.Empty(t, h.broker.Pending(""))
	next.ToolUse("spawn_2", "spawn_subagents", map[string]any{"agents": []map[string]any{{"prompt": "y", "environment": "box"}}})
	next.ToolUse("spawn_3", "spawn_subagents", map[string]any{"agents": []map[string]any{{"prompt": "z", "environment": "home"}}})
	next.Stop(provider.StopToolUse)
	last := h.nextParent(t)
	text, isErr = resultText(t, last, "spawn_2")
	assert.True(t, isErr)
	assert.Contains(t, text, "agents[0].environment: box: this front end cannot make other environments")
	text, isErr = resultText(t, last, "spawn_3")
	assert.False(t, isErr, text)
	assert.Contains(t, text, "(subagent): done\nran")
	h.screen.waitForText(t, "▸ subagent · z · done")
	assert.NotContains(t, h.screen.text(), "in home", "a local parent's child named local stays in its parent's environment")
	last.Reply("ok")
}

func subagentIDs(t *testing.T, text string) []string {
	t.Helper()
	var ids []string
	for _, l := range strings.Split(text, "\n") {
		if rest, ok := strings.CutPrefix(l, "## sub-agent "); ok {
			ids = append(ids, strings.Fields(rest)[0])
		}
	}
	require.NotEmpty(t, ids, text)
	return ids
}

func TestParseFreeForm(t *testing.T) {
	tests := []struct {
		in      string
		want    config.Environment
		free    bool
		wantErr string
	}{
		{in: "box"},
		{in: "docker:dev", want: config.Environment{Type: "docker", Container: "dev"}, free: true},
		{in: "docker:dev:/work/./x", want: config.Environment{Type: "docker", Container: "dev", Cwd: "/work/x"}, free: true},
		{in: "ssh:devbox", want: config.Environment{Type: "ssh", Host: "devbox"}, free: true},
		{in: "ssh:me@devbox.example:/srv/app", want: config.Environment{Type: "ssh", Host: "me@devbox.example", Cwd: "/srv/app"}, free: true},
		{in: "ssh:", free: true, wantErr: `"" is not a host`},
		{in: "ssh:-oProxyCommand=x", free: true, wantErr: "is not a host"},
		{in: "ssh:a b", free: true, wantErr: "is not a host"},
		{in: "ssh:devbox:srv", free: true, wantErr: `the directory "srv" must be absolute`},
		{in: "ssh:devbox:", free: true, wantErr: `the directory "" must be absolute`},
		{in: "docker:--privileged", free: true, wantErr: "is not a container name"},
		{in: "docker:a@b", free: true, wantErr: "is not a container name"},
		{in: "docker:", free: true, wantErr: "is not a container name"},
	}
	for _, tt := range tests {
		got, free, err := parseFreeForm(tt.in)
		assert.Equal(t, tt.free, free, tt.in)
		if tt.wantErr != "" {
			assert.ErrorContains(t, err, tt.wantErr, tt.in)
			continue
		}
		assert.NoError(t, err, tt.in)
		assert.Equal(t, tt.want, got, tt.in)
	}
}
