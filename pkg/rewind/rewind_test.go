package rewind

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/localfs"
	"github.com/magenta-nvim/magenta/pkg/chat"
	"github.com/magenta-nvim/magenta/pkg/chat/view"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// quietScreen is a chat.Screen that keeps only whether a frame with the
// given text was published.
type quietScreen struct {
	mu     sync.Mutex
	text   string
	change chan struct{}
}

func (s *quietScreen) Publish(key string, f *view.Frame) {
	if key == chat.ThreadListKey {
		return
	}
	var b strings.Builder
	for _, sec := range f.All() {
		for _, l := range sec.Lines {
			b.WriteString(l.Text + "\n")
		}
	}
	s.mu.Lock()
	s.text = b.String()
	s.mu.Unlock()
	select {
	case s.change <- struct{}{}:
	default:
	}
}
func (s *quietScreen) Show(string)                                 {}
func (s *quietScreen) BindingAt(int, view.Key) (view.Action, bool) { return view.Action{}, false }
func (s *quietScreen) Notify(string, chat.Level)                   {}
func (s *quietScreen) NotifyIfHidden(string)                       {}
func (s *quietScreen) OpenFile(string, int)                        {}

func (s *quietScreen) waitFor(t *testing.T, sub string) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		s.mu.Lock()
		ok := strings.Contains(s.text, sub)
		s.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-s.change:
		case <-deadline:
			s.mu.Lock()
			defer s.mu.Unlock()
			t.Fatalf("never drawn: %q in\n%s", sub, s.text)
		}
	}
}

// shellLike stands in for a command the model runs: it changes the
// workspace's files behind the FileIO's back, as sed -i or rm would.
func shellLike(ws string) tools.Tool {
	return tools.MustTyped("shell_like", "changes files as a command would", nil, func(_ context.Context, _ tools.Call, p struct {
		Write  map[string]string `json:"write"`
		Remove []string          `json:"remove"`
	}) tools.Result {
		for name, text := range p.Write {
			if err := os.WriteFile(filepath.Join(ws, name), []byte(text), 0o644); err != nil {
				return tools.Errorf(err.Error())
			}
		}
		for _, name := range p.Remove {
			if err := os.Remove(filepath.Join(ws, name)); err != nil {
				return tools.Errorf(err.Error())
			}
		}
		return tools.Result{Text: "done"}
	})
}

type rig struct {
	ws     string
	cp     *Checkpointer
	app    *chat.App
	fake   *providertest.Fake
	screen *quietScreen
}

func newRig(t *testing.T) *rig {
	t.Helper()
	ws := t.TempDir()
	for name, text := range map[string]string{"edited.txt": "one\n", "sedded.txt": "two\n", "removed.txt": "three\n"} {
		require.NoError(t, os.WriteFile(filepath.Join(ws, name), []byte(text), 0o644))
	}
	env, err := capabilities.NewLocal(ws)
	require.NoError(t, err)
	env.Files = localfs.New()
	cp := New(Options{Dir: filepath.Join(t.TempDir(), "store"), Workspace: env.Cwd})
	t.Cleanup(cp.Close)
	r := &rig{ws: ws, cp: cp, fake: providertest.New(), screen: &quietScreen{change: make(chan struct{}, 1)}}
	app, err := chat.NewApp(context.Background(), config.Options{Profiles: []config.Profile{{Name: "p", Provider: "anthropic", Model: "m"}}, Subagents: config.Subagents{MaxDepth: 1}}, chat.AppDeps{
		Screen: r.screen, Tools: tools.Default().With(shellLike(ws)), Env: env,
		NewProvider:  func(config.Profile) (provider.Provider, error) { return r.fake, nil },
		Observers:    []chat.Observer{cp.Observer()},
		Interceptors: []tools.Interceptor{cp.Interceptor()},
	})
	require.NoError(t, err)
	t.Cleanup(app.Close)
	r.app = app
	return r
}

func (r *rig) read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(r.ws, name))
	if os.IsNotExist(err) {
		return "<absent>"
	}
	require.NoError(t, err)
	return string(b)
}

// The model edits a file with write_file, changes another and removes a
// third "through the shell", and creates a fourth; restoring message 1
// brings all four back, and the list says what changed since.
func TestRestoreUndoesToolsAndCommands(t *testing.T) {
	r := newRig(t)
	r.app.Send("change things")
	call := r.fake.Next(t)
	call.ToolUse("w1", "write_file", map[string]string{"path": "edited.txt", "content": "ONE\n"})
	call.ToolUse("s1", "shell_like", map[string]any{"write": map[string]string{"sedded.txt": "TWO\n", "created.txt": "new\n"}, "remove": []string{"removed.txt"}})
	call.Stop(provider.StopToolUse)
	next := r.fake.Next(t)
	for id, b := range next.Results() {
		require.False(t, b.IsError, "%s: %s", id, b.Result[0].Text)
	}
	next.Reply("changed")
	r.screen.waitFor(t, "changed")
	require.Equal(t, "ONE\n", r.read(t, "edited.txt"))

	ctx := context.Background()
	id, texts := r.app.ActiveUserMessages()
	entries, err := r.cp.Messages(ctx, id, texts, nil)
	require.NoError(t, err)
	require.Len(t, entries, 1)
	assert.True(t, entries[0].Checkpoint)
	assert.Equal(t, 4, entries[0].Files)

	pv, err := r.cp.Preview(ctx, id, 1, nil)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"created.txt", "edited.txt", "removed.txt", "sedded.txt"}, pv.Files)
	assert.Empty(t, pv.Conflicts)
	assert.Contains(t, pv.Diff, "-ONE")

	rep, err := r.cp.Restore(ctx, id, 1, false)
	require.NoError(t, err)
	assert.Len(t, rep.Files, 4)
	assert.Equal(t, "one\n", r.read(t, "edited.txt"))
	assert.Equal(t, "two\n", r.read(t, "sedded.txt"))
	assert.Equal(t, "three\n", r.read(t, "removed.txt"))
	assert.Equal(t, "<absent>", r.read(t, "created.txt"))
}

// A file the user changed after the agent's last change is a conflict:
// nothing is restored unless forced.
func TestRestoreRefusesToOverwriteTheUsersChanges(t *testing.T) {
	r := newRig(t)
	r.app.Send("edit")
	call := r.fake.Next(t)
	call.ToolUse("w1", "write_file", map[string]string{"path": "edited.txt", "content": "ONE\n"})
	call.Stop(provider.StopToolUse)
	r.fake.Next(t).Reply("edited")
	r.screen.waitFor(t, "edited")
	require.NoError(t, os.WriteFile(filepath.Join(r.ws, "edited.txt"), []byte("mine\n"), 0o644))

	ctx := context.Background()
	id, _ := r.app.ActiveUserMessages()
	_, err := r.cp.Restore(ctx, id, 1, false)
	var conflict *ConflictError
	require.ErrorAs(t, err, &conflict)
	assert.Equal(t, []string{"edited.txt"}, conflict.Paths)
	assert.Equal(t, "mine\n", r.read(t, "edited.txt"), "nothing was restored")

	_, err = r.cp.Restore(ctx, id, 1, true)
	require.NoError(t, err)
	assert.Equal(t, "one\n", r.read(t, "edited.txt"))

	_, err = r.cp.Restore(ctx, id, 2, false)
	assert.ErrorContains(t, err, "no checkpoint of message 2")
}

// A thread in another environment (a container) is not checkpointed.
func TestOnlyTheLocalWorkspaceIsCovered(t *testing.T) {
	cp := New(Options{Dir: t.TempDir(), Workspace: "/ws"})
	assert.True(t, cp.covers(&capabilities.Environment{Name: "local", Cwd: "/ws"}))
	assert.False(t, cp.covers(&capabilities.Environment{Name: "docker:dev", Cwd: "/ws"}))
	assert.False(t, cp.covers(&capabilities.Environment{Name: "local", Cwd: "/elsewhere"}))
	assert.False(t, cp.covers(nil))
}

// A sub-agent's changes are undone with its parent's message: its calls
// are checkpointed as its own thread's, and the restore goes back to the
// parent's checkpoint.
func TestRestoreUndoesASubagentsChange(t *testing.T) {
	r := newRig(t)
	parent := make(chan *providertest.Call, 4)
	r.fake.Serve(func(c *providertest.Call) {
		if !strings.Contains(c.Request.System, "You are a sub-agent") {
			parent <- c
			return
		}
		if len(c.Results()) == 0 {
			c.ToolUse("w", "write_file", map[string]string{"path": "edited.txt", "content": "by the child\n"})
			c.Stop(provider.StopToolUse)
			return
		}
		c.ToolUse("y", "yield_to_parent", map[string]string{"result": "wrote it"})
		c.Stop(provider.StopToolUse)
	})
	r.app.Send("delegate")
	call := <-parent
	call.ToolUse("s", "spawn_subagents", map[string]any{"agents": []map[string]any{{"prompt": "write"}}})
	call.Stop(provider.StopToolUse)
	(<-parent).Reply("delegated")
	r.screen.waitFor(t, "delegated")
	require.Equal(t, "by the child\n", r.read(t, "edited.txt"))

	id, _ := r.app.ActiveUserMessages()
	_, err := r.cp.Restore(context.Background(), id, 1, false)
	require.NoError(t, err)
	assert.Equal(t, "one\n", r.read(t, "edited.txt"))
}

// A deleted thread's checkpoints go with it; another thread's stay.
func TestDeleteThreadDeletesItsCheckpoints(t *testing.T) {
	r := newRig(t)
	r.app.Send("first")
	r.fake.Next(t).Reply("one")
	r.screen.waitFor(t, "one")
	ctx := context.Background()
	id, _ := r.app.ActiveUserMessages()
	_, err := r.cp.snapshot(ctx, "other-thread", "message 1")
	require.NoError(t, err)
	_, err = r.cp.Preview(ctx, id, 1, nil)
	require.NoError(t, err, "message 1 has its checkpoint")

	require.NoError(t, r.cp.DeleteThread(ctx, id))
	_, err = r.cp.Preview(ctx, id, 1, nil)
	assert.ErrorContains(t, err, "no checkpoint of message 1")
	others, err := r.cp.labels(ctx, "other-thread")
	require.NoError(t, err)
	assert.Contains(t, others, "message 1")
}

// Close waits for a rewind in progress and refuses new ones; nothing
// uses the store after it is closed (run with -race).
func TestCloseWaitsForOperations(t *testing.T) {
	r := newRig(t)
	r.app.Send("first")
	r.fake.Next(t).Reply("one")
	r.screen.waitFor(t, "one")
	id, texts := r.app.ActiveUserMessages()
	done := make(chan error, 1)
	go func() {
		_, err := r.cp.Messages(context.Background(), id, texts, nil)
		done <- err
	}()
	r.cp.Close()
	if err := <-done; err != nil {
		assert.Contains(t, err.Error(), "stopped")
	}
	_, err := r.cp.Preview(context.Background(), id, 1, nil)
	assert.ErrorContains(t, err, "checkpoints are stopped")
}
