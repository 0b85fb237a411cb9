package tools

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// actionsLSP offers fixed code actions and records what it resolved and
// ran.
type actionsLSP struct {
	fakeLSP
	actions  []capabilities.CodeAction
	resolved *capabilities.WorkspaceEdit
	asked    []string // resolved titles
	ran      []string // commands run
}

func (f *actionsLSP) CodeActions(context.Context, string, int, int) ([]capabilities.CodeAction, error) {
	return f.actions, nil
}
func (f *actionsLSP) ResolveCodeAction(_ context.Context, a capabilities.CodeAction) (capabilities.CodeAction, error) {
	f.asked = append(f.asked, a.Title)
	a.Edit = f.resolved
	return a, nil
}
func (f *actionsLSP) RunCodeCommand(_ context.Context, a capabilities.CodeAction) (capabilities.CommandRun, error) {
	f.ran = append(f.ran, a.Command)
	return capabilities.CommandRun{Modified: []string{"/w/b.go"}}, nil
}

func greetToHello(path string) *capabilities.WorkspaceEdit {
	return &capabilities.WorkspaceEdit{Server: "gopls", Files: []capabilities.FileEdit{{Path: path, Encoding: "utf-16",
		Edits: []capabilities.TextEdit{{StartLine: 2, StartCol: 5, EndLine: 2, EndCol: 10, NewText: "Hello"}}}}}
}

func codeActionsEnv(lsp *actionsLSP, answer error) (*capabilities.Environment, *askingFS, *[]string) {
	env, files := renameEnv(&lsp.fakeLSP, true)
	env.LSP = lsp
	var questions []string
	env.Ask = func(_ context.Context, subject, reason string) error {
		questions = append(questions, subject)
		return answer
	}
	return env, files, &questions
}

func runIn(t *testing.T, tool Tool, env *capabilities.Environment, thread string, input any) Result {
	t.Helper()
	raw, err := json.Marshal(input)
	require.NoError(t, err)
	return tool.Run(context.Background(), Call{Env: env, Input: raw, ThreadID: thread})
}

func TestCodeActionsListAndApply(t *testing.T) {
	lsp := &actionsLSP{actions: []capabilities.CodeAction{
		{Server: "gopls", Title: "Rename to Hello", Kind: "quickfix", Edit: greetToHello("/w/a.go")},
		{Server: "gopls", Title: "Lazy", Kind: "refactor", Resolvable: true},
		{Server: "gopls", Title: "Run it", Command: "gopls.run", CommandRunnable: true},
		{Server: "gopls", Title: "Editor only", Command: "editor.thing"},
		{Server: "gopls", Title: "Not now", Disabled: "no"},
	}, resolved: greetToHello("/w/a.go")}
	env, files, questions := codeActionsEnv(lsp, nil)
	list, apply := CodeActionTools()
	assert.True(t, list.(Offerer).OfferedIn(&capabilities.Environment{LSP: &fakeLSP{support: map[string]capabilities.LSPSupport{capabilities.LSPCodeAction: capabilities.LSPSupported}}}))
	assert.False(t, apply.(Offerer).OfferedIn(&capabilities.Environment{LSP: capabilities.NoLSP{}}))

	res := runIn(t, apply, env, "t1", map[string]int{"index": 1})
	require.True(t, res.IsError)
	assert.Contains(t, res.Text, "no code actions are listed in this thread: call code_actions first")

	res = runIn(t, list, env, "t1", map[string]any{"filePath": "a.go", "startLine": 3})
	require.False(t, res.IsError, res.Text)
	assert.Equal(t, "Code actions for line 3 of a.go (apply one with apply_code_action and its index):\n"+
		"1. Rename to Hello [quickfix] (gopls)\n2. Lazy [refactor] (gopls)\n3. Run it (gopls) (runs a server command)\n4. Editor only (gopls) (runs a server command)", res.Text)

	// Another thread has no listing of its own.
	res = runIn(t, apply, env, "t2", map[string]int{"index": 1})
	require.True(t, res.IsError)
	assert.Contains(t, res.Text, "no code actions are listed")

	res = runIn(t, apply, env, "t1", map[string]int{"index": 5})
	require.True(t, res.IsError)
	assert.Contains(t, res.Text, "index 5 is not in the last code_actions listing (1-4)")

	res = runIn(t, apply, env, "t1", map[string]int{"index": 4})
	require.True(t, res.IsError)
	assert.Contains(t, res.Text, "runs the command editor.thing, which the server does not execute")
	assert.Empty(t, *questions)

	// A command asks first; the edit-only action does not.
	res = runIn(t, apply, env, "t1", map[string]int{"index": 3})
	require.False(t, res.IsError, res.Text)
	assert.Equal(t, []string{"gopls: gopls.run"}, *questions)
	assert.Equal(t, []string{"gopls.run"}, lsp.ran)
	assert.Equal(t, `gopls ran its command gopls.run for "Run it" and applied its own edits to the editor's buffers of: b.go. They may be unsaved; read them again before editing them.`, res.Text)

	// The command used the listing up; the lazy one resolves its edit.
	res = runIn(t, apply, env, "t1", map[string]int{"index": 2})
	require.True(t, res.IsError)
	res = runIn(t, list, env, "t1", map[string]any{"filePath": "a.go", "startLine": 3, "endLine": 3})
	require.False(t, res.IsError, res.Text)
	res = runIn(t, apply, env, "t1", map[string]int{"index": 2})
	require.False(t, res.IsError, res.Text)
	assert.Equal(t, "Applied \"Lazy\" (gopls):\na.go +1 -1", res.Text)
	assert.Equal(t, []string{"Lazy"}, lsp.asked)
	assert.Equal(t, []string{"/w/a.go"}, files.writes)
	assert.Len(t, *questions, 1)

	// The file changed since the listing: its indexes are stale.
	res = runIn(t, list, env, "t1", map[string]any{"filePath": "a.go", "startLine": 1, "endLine": 9})
	require.False(t, res.IsError, res.Text)
	assert.Contains(t, res.Text, "lines 1-3 of a.go")
	files.inner.Put("/w/a.go", []byte("package a\n\n// moved\nfunc Hello() {}\n"))
	res = runIn(t, apply, env, "t1", map[string]int{"index": 1})
	require.True(t, res.IsError)
	assert.Equal(t, "a.go changed since its code actions were listed: the actions no longer fit it. Nothing was changed; call code_actions again for fresh indexes.", res.Text)
}

func TestApplyCodeActionDeclined(t *testing.T) {
	lsp := &actionsLSP{actions: []capabilities.CodeAction{
		{Server: "gopls", Title: "Both", Edit: greetToHello("/w/a.go"), Command: "gopls.run", CommandRunnable: true},
	}}
	env, files, questions := codeActionsEnv(lsp, &capabilities.DeniedError{What: "gopls: gopls.run", Reason: "the user declined"})
	list, apply := CodeActionTools()
	res := runIn(t, list, env, "t", map[string]any{"filePath": "a.go", "startLine": 3})
	require.False(t, res.IsError, res.Text)
	res = runIn(t, apply, env, "t", map[string]int{"index": 1})
	require.True(t, res.IsError)
	assert.Equal(t, "The user did not approve running gopls's command gopls.run (the user declined). Nothing ran and nothing was changed.", res.Text)
	assert.Len(t, *questions, 1)
	assert.Empty(t, lsp.ran)
	assert.Empty(t, files.writes, "the edit waits for the answer too")

	env.Ask = nil
	res = runIn(t, apply, env, "t", map[string]int{"index": 1})
	require.True(t, res.IsError)
	assert.Contains(t, res.Text, "this environment cannot ask the user to approve it. Nothing was changed.")
}

func TestCodeActionListingsAreBounded(t *testing.T) {
	s := &codeActionState{}
	for i := range maxListings + 5 {
		s.put(string(rune('a'+i%26))+string(rune('0'+i/26)), &codeActionListing{})
	}
	assert.Len(t, s.listings, maxListings)
	assert.Len(t, s.order, maxListings)
	assert.Nil(t, s.get("a0"), "the oldest went first")
}
