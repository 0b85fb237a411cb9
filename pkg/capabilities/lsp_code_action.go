package capabilities

import (
	"context"
	"encoding/json"
)

// LSPCodeAction is the request the code action tools send.
const LSPCodeAction = "textDocument/codeAction"

// CodeAction is one action a server offered for a range of a file.
type CodeAction struct {
	Server   string
	ClientID int // the editor's client that offered it (resolved and run through it)
	Title    string
	Kind     string // "quickfix", "source.organizeImports", … ("" when not given)
	// Disabled is the server's reason when it offers the action but says
	// it cannot be applied now.
	Disabled string
	// Edit is the change, when the server sent it with the action; nil
	// until resolved otherwise.
	Edit *WorkspaceEdit
	// Resolvable: the server computes the edit on request
	// (codeAction/resolve).
	Resolvable bool
	// Command names the server command the action runs after its edit
	// ("" when none); CommandRunnable says the server executes it
	// (workspace/executeCommand) rather than leaving it to an editor.
	Command         string
	CommandRunnable bool
	// Raw is the action as the server sent it and CommandRaw its command,
	// handed back to the server to resolve or run it.
	Raw, CommandRaw json.RawMessage
}

// CommandRun is what running a code action's command did.
type CommandRun struct {
	// Modified lists the files of the editor's buffers that changed
	// while the command ran (the server's own edits, which the editor
	// applies to its buffers).
	Modified []string
}

// CodeActioner lists and runs the servers' code actions; an LspClient
// implements it.
type CodeActioner interface {
	// CodeActions lists the actions of every supporting server for the
	// 0-based lines first..last of path, with the diagnostics reported
	// on them as context.
	CodeActions(ctx context.Context, path string, first, last int) ([]CodeAction, error)
	// ResolveCodeAction asks the server that offered a for its edit.
	ResolveCodeAction(ctx context.Context, a CodeAction) (CodeAction, error)
	// RunCodeCommand runs a's command through the server that offered it.
	RunCodeCommand(ctx context.Context, a CodeAction) (CommandRun, error)
}

func (NoLSP) CodeActions(context.Context, string, int, int) ([]CodeAction, error) {
	return nil, errNoLSP
}
func (NoLSP) ResolveCodeAction(context.Context, CodeAction) (CodeAction, error) {
	return CodeAction{}, errNoLSP
}
func (NoLSP) RunCodeCommand(context.Context, CodeAction) (CommandRun, error) {
	return CommandRun{}, errNoLSP
}
