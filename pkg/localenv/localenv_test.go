package localenv

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/approval"
	"github.com/magenta-nvim/magenta/pkg/bashperm"
	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/guard"
	"github.com/magenta-nvim/magenta/pkg/capabilities/memshell"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/sandbox/sandboxtest"
)

// build makes a local environment in a temporary workspace whose
// commands run in a scripted shell, every question answered no.
func build(t *testing.T, opts config.Options, o Options, scripts ...memshell.Script) (*Local, *[]approval.Request) {
	t.Helper()
	checker, err := BashChecker(opts)
	require.NoError(t, err)
	var asked []approval.Request
	broker := approval.NewBroker(nil)
	broker.SetPolicy(func(_ context.Context, r approval.Request) (approval.Decision, string, bool) {
		asked = append(asked, r)
		return approval.Deny, "test says no", true
	})
	o.Cwd, o.DataDir, o.Broker, o.Remembered = t.TempDir(), t.TempDir(), broker, guard.NewRemembered()
	o.Checker = func() *bashperm.Checker { return checker }
	o.Probe = StartProbe(context.Background(), opts.Sandbox, nil, nil)
	o.Shell = memshell.New(scripts...)
	local, err := New(opts, o)
	require.NoError(t, err)
	return local, &asked
}

func TestNewHasEveryLocalCapability(t *testing.T) {
	opts := config.Options{Shell: config.Shell{LogRoot: t.TempDir()}}
	local, _ := build(t, opts, Options{})
	env := local.Env
	assert.Equal(t, "local", env.Name)
	for name, v := range map[string]any{"files": env.Files, "shell": env.Shell, "searcher": env.Searcher, "fetcher": env.Fetcher, "artifacts": env.Artifacts, "banner": env.Banner} {
		assert.NotNil(t, v, name)
	}
	assert.Nil(t, env.LSPAvailable, "language servers are the front end's")
	assert.NotNil(t, local.Prompts)
	assert.NotNil(t, local.Locator)
}

// Options.Files wraps the disk before the guard (Neovim's buffers).
func TestFilesWrapperIsBehindTheGuard(t *testing.T) {
	var wrapped bool
	opts := config.Options{Shell: config.Shell{LogRoot: t.TempDir()}}
	_, _ = build(t, opts, Options{Files: func(disk capabilities.FileIO) capabilities.FileIO { wrapped = true; return disk }})
	assert.True(t, wrapped)
}

// AskConfined: what the checker would confine runs without asking
// when the sandbox is available, and asks instead with AskConfined (the
// broker's no, with its reason, reaching the caller).
func TestAskConfinedAsks(t *testing.T) {
	sandboxtest.Require(t)
	opts := config.Options{Shell: config.Shell{LogRoot: t.TempDir()}}
	npm := memshell.Script{Command: "npm test"}
	local, asked := build(t, opts, Options{}, npm)
	_, err := local.Env.Shell.Execute(context.Background(), "npm test", capabilities.ExecOptions{})
	require.NoError(t, err)
	assert.Empty(t, *asked, "confined without asking")

	local, asked = build(t, opts, Options{AskConfined: true}, npm)
	_, err = local.Env.Shell.Execute(context.Background(), "npm test", capabilities.ExecOptions{})
	var denied *capabilities.DeniedError
	require.True(t, errors.As(err, &denied), "%v", err)
	assert.Equal(t, "test says no", denied.Reason)
	require.Len(t, *asked, 1)
	assert.Equal(t, "npm test", (*asked)[0].Subject)
}
