package tools

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/memfs"
)

// lspNeverAsked is an LspClient that fails the test when asked: a tool
// that was not offered must not reach it.
type lspNeverAsked struct {
	capabilities.NoLSP
	t *testing.T
}

func (l lspNeverAsked) Hover(context.Context, string, capabilities.Position) ([]capabilities.Hover, error) {
	l.t.Error("hover ran although it was not offered")
	return nil, nil
}

// Only the tools a request offered run; another call is answered with an
// error naming the tool as unavailable, and why.
func TestRunOfferedRunsOnlyWhatTheRequestOffered(t *testing.T) {
	reg := Default()
	files := memfs.New()
	files.Put("/w/a.go", []byte("package a\n"))
	env := &capabilities.Environment{Cwd: "/w", Files: files, LSP: lspNeverAsked{t: t}, Diagnostics: capabilities.NoLSP{}}
	offered := OfferedSet(reg.OfferedIn(env))
	ctx := context.Background()

	res := reg.RunOffered(ctx, "hover", Call{Env: env, Input: json.RawMessage(`{"filePath":"a.go","symbol":"a"}`)}, offered)
	assert.True(t, res.IsError)
	assert.Equal(t, "tool hover is not available: it needs lsp (no language server runs or is configured for the workspace's files), which this environment does not provide now. It was not offered with this request, so it did not run. The tools available now are: edit_file, get_file, thread_title, todo_write, write_file.", res.Text)

	res = reg.RunOffered(ctx, "launch_rockets", Call{Env: env, Input: json.RawMessage(`{}`)}, offered)
	assert.True(t, res.IsError)
	assert.Equal(t, `unknown tool "launch_rockets"; the tools available now are: edit_file, get_file, thread_title, todo_write, write_file`, res.Text)

	res = reg.RunOffered(ctx, "get_file", Call{Env: env, Input: json.RawMessage(`{"path":"a.go"}`)}, offered)
	assert.False(t, res.IsError, res.Text)
	assert.Contains(t, res.Text, "package a")
}
