package hooks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/approval"
	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/localshell"
	"github.com/magenta-nvim/magenta/pkg/chat"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
	"github.com/magenta-nvim/magenta/pkg/sandbox"
	"github.com/magenta-nvim/magenta/pkg/sandbox/sandboxtest"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// A trusted workspace hook runs under the sandbox: it writes in the
// workspace, but the user's secrets are not there to read — while
// setup()'s hook, the user's own, reads them as the user.
func TestWorkspaceHooksRunConfined(t *testing.T) {
	st := sandboxtest.Require(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".ssh"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(home, ".ssh", "id_ed25519"), []byte("SECRET-KEY-MATERIAL"), 0o600))
	ws, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	read := `cat "$HOME/.ssh/id_ed25519" 2>/dev/null || echo "no key here"`
	data, err := json.Marshal(map[string]any{"hooks": map[string]any{"UserPromptSubmit": []any{map[string]any{"hooks": []any{
		map[string]any{"type": "command", "command": "echo workspace-hook: $(" + read + "); touch ran-in-workspace"},
	}}}}})
	require.NoError(t, err)
	writeFile(t, ws, SettingsFile, string(data))

	broker := approval.NewBroker(nil)
	changed := make(chan struct{}, 1)
	gate := NewGate(GateOptions{Workspace: ws, Broker: broker, OnChange: func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	}})
	t.Cleanup(gate.Close)
	setup, _, err := ParseOption(json.RawMessage(hooksJSON("UserPromptSubmit", "", "echo setup-hook: $("+read+")", 0)))
	require.NoError(t, err)
	confiner := localshell.BwrapConfiner{Status: func() (sandbox.Status, error) { return st, nil }, Policy: sandbox.Policy{Workspace: ws, Home: home}}
	engine := New(Options{Setup: setup, Gate: gate, Broker: broker, Place: func(env *capabilities.Environment, workspace bool) (Place, error) {
		if workspace {
			return ConfinedPlace(env.Cwd, os.Environ(), confiner, "confined"), nil
		}
		return BashPlace(env.Cwd, nil, "as you"), nil
	}})
	t.Cleanup(engine.Close)
	env, err := capabilities.NewLocal(ws)
	require.NoError(t, err)
	fake, scr := providertest.New(), newScreen()
	app, err := chat.NewApp(context.Background(), config.Options{Profiles: []config.Profile{{Name: "p", Provider: "anthropic", Model: "m"}}}, chat.AppDeps{
		Screen: scr, Tools: tools.Default(), Env: env, Broker: broker,
		NewProvider: func(config.Profile) (provider.Provider, error) { return fake, nil },
		PromptCheck: engine,
		Observers:   []chat.Observer{engine.Observer()},
	})
	require.NoError(t, err)
	t.Cleanup(app.Close)

	// Before the answer, only setup()'s hook runs.
	app.Send("one")
	first := fake.Next(t)
	assert.Contains(t, first.LastUserText(), "setup-hook: SECRET-KEY-MATERIAL", "setup()'s hook runs as the user")
	assert.NotContains(t, first.LastUserText(), "workspace-hook")
	_, err = os.Stat(filepath.Join(ws, "ran-in-workspace"))
	assert.True(t, os.IsNotExist(err), "nothing of the workspace runs before YES")
	first.Reply("ok")
	scr.waitFor(t, "ok")
	gate.Trust() // :Magenta hooks-trust answers the question YES
	deadline := time.After(10 * time.Second)
	for gate.Status().State != StateTrusted {
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("never trusted: %+v", gate.Status())
		}
	}

	app.Send("two")
	second := fake.Next(t)
	wire := second.LastUserText()
	assert.Contains(t, wire, "workspace-hook: no key here", "the confined hook cannot read the key")
	assert.NotContains(t, wire, "workspace-hook: SECRET")
	_, err = os.Stat(filepath.Join(ws, "ran-in-workspace"))
	assert.NoError(t, err, "it ran, and wrote in the workspace")
	second.Reply("done")
}
