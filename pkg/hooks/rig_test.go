package hooks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/approval"
	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/localfs"
	"github.com/magenta-nvim/magenta/pkg/capabilities/localshell"
	"github.com/magenta-nvim/magenta/pkg/chat"
	"github.com/magenta-nvim/magenta/pkg/chat/view"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// screen is a chat.Screen that keeps the text of the last frame and
// what went back to the input.
type screen struct {
	mu       sync.Mutex
	text     string
	restored []string
	change   chan struct{}
}

func newScreen() *screen { return &screen{change: make(chan struct{}, 1)} }

func (s *screen) Publish(key string, f *view.Frame) {
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
	s.poke()
}

func (s *screen) poke() {
	select {
	case s.change <- struct{}{}:
	default:
	}
}

func (s *screen) RestoreInput(text string) {
	s.mu.Lock()
	s.restored = append(s.restored, text)
	s.mu.Unlock()
	s.poke()
}
func (s *screen) Show(string)                                 {}
func (s *screen) BindingAt(int, view.Key) (view.Action, bool) { return view.Action{}, false }
func (s *screen) Notify(string, chat.Level)                   {}
func (s *screen) NotifyIfHidden(string)                       {}
func (s *screen) OpenFile(string, int)                        {}

// waitFor waits until the screen shows every one of subs.
func (s *screen) waitFor(t *testing.T, subs ...string) string {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		s.mu.Lock()
		text := s.text
		s.mu.Unlock()
		all := true
		for _, sub := range subs {
			all = all && strings.Contains(text, sub)
		}
		if all {
			return text
		}
		select {
		case <-s.change:
		case <-deadline:
			t.Fatalf("never drawn: %q in\n%s", subs, text)
		}
	}
}

// rig is an App in a workspace whose tools run for real (bash_command
// through the local shell, unconfined), with an Engine of the given
// setup() hooks.
type rig struct {
	ws     string
	app    *chat.App
	fake   *providertest.Fake
	screen *screen
	engine *Engine
	broker *approval.Broker
}

func newRig(t *testing.T, option string) *rig {
	t.Helper()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	hooks, _, err := ParseOption(json.RawMessage(option))
	require.NoError(t, err)
	env, err := capabilities.NewLocal(ws)
	require.NoError(t, err)
	env.Files = localfs.New()
	env.Shell = localshell.New(localshell.Options{LogRoot: filepath.Join(t.TempDir(), "logs"), Cwd: ws, Unsupervised: true})
	r := &rig{ws: ws, fake: providertest.New(), screen: newScreen(), broker: approval.NewBroker(nil)}
	r.engine = New(Options{Setup: hooks, Broker: r.broker, Place: func(env *capabilities.Environment, _ bool) (Place, error) {
		return BashPlace(env.Cwd, nil, "as you"), nil
	}})
	t.Cleanup(r.engine.Close)
	app, err := chat.NewApp(context.Background(), config.Options{Profiles: []config.Profile{{Name: "p", Provider: "anthropic", Model: "m"}}}, chat.AppDeps{
		Screen: r.screen, Tools: tools.Default(), Env: env, Broker: r.broker,
		NewProvider:  func(config.Profile) (provider.Provider, error) { return r.fake, nil },
		Interceptors: []tools.Interceptor{r.engine},
		Observers:    []chat.Observer{r.engine.Observer()},
		PromptCheck:  r.engine,
	})
	require.NoError(t, err)
	t.Cleanup(app.Close)
	r.app = app
	return r
}

func (r *rig) exists(name string) bool {
	_, err := os.Stat(filepath.Join(r.ws, name))
	return err == nil
}

func (r *rig) read(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(r.ws, name))
	require.NoError(t, err)
	return string(data)
}

// bash asks for one bash_command and returns the next request.
func (r *rig) bash(t *testing.T, command string) *providertest.Call {
	t.Helper()
	c := r.fake.Next(t)
	c.ToolUse("b1", "bash_command", map[string]string{"command": command})
	c.Stop(provider.StopToolUse)
	return r.fake.Next(t)
}

// result is the text and error flag of the call id in c.
func result(t *testing.T, c *providertest.Call, id string) (string, bool) {
	t.Helper()
	b, ok := c.Results()[id]
	require.True(t, ok, "no result for %s", id)
	var text strings.Builder
	for _, x := range b.Result {
		text.WriteString(x.Text)
	}
	return text.String(), b.IsError
}

// hooksJSON is a hooks option: one group of event with matcher and a
// command hook (timeout in seconds, 0: none).
func hooksJSON(event, matcher, command string, timeout float64) string {
	h := map[string]any{"type": "command", "command": command}
	if timeout > 0 {
		h["timeout"] = timeout
	}
	data, _ := json.Marshal(map[string]any{event: []any{map[string]any{"matcher": matcher, "hooks": []any{h}}}})
	return string(data)
}
