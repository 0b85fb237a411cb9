package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

//go:embed rename_symbol.md
var renameSymbolDescription string

// RenameParams is the input of rename_symbol.
type RenameParams struct {
	FilePath string `json:"filePath" jsonschema:"a file containing the symbol, relative to the workspace root"`
	Symbol   string `json:"symbol" jsonschema:"the identifier as it appears in the file"`
	Context  string `json:"context,omitempty" jsonschema:"optional text around the symbol, to pick one occurrence"`
	NewName  string `json:"newName" jsonschema:"the new name"`
}

// RenameSymbol returns the rename_symbol tool.
func RenameSymbol() Tool {
	return newLSPTool(MustTyped("rename_symbol", renameSymbolDescription, lspTimes, runRename), "rename_symbol", capabilities.LSPRename, false)
}

func runRename(ctx context.Context, call Call, p RenameParams) Result {
	newName := strings.TrimSpace(p.NewName)
	switch {
	case newName == "":
		return Errorf("newName must not be empty")
	case newName == p.Symbol:
		return Errorf(fmt.Sprintf("%s is already named %s", p.Symbol, newName))
	}
	path, pos, res := locate(ctx, call, SymbolParams{FilePath: p.FilePath, Symbol: p.Symbol, Context: p.Context})
	if res != nil {
		return *res
	}
	we, err := call.Env.LSP.Rename(ctx, path, pos, p.Symbol, newName)
	if err != nil {
		return editRequestError("rename", err)
	}
	if res := refuseFileOperations(we); res != nil {
		return *res
	}
	// A rename replaces occurrences of the old name: an edit that puts
	// the new name over other text was computed for text that has
	// changed since (servers that send smaller edits are not checked).
	check := func(replaced, newText string) error {
		if newText == newName && replaced != p.Symbol {
			return fmt.Errorf("an edit meant to replace %s with %s would replace %q: the text changed after the server computed the rename; call rename_symbol again", p.Symbol, newName, replaced)
		}
		// A larger edit (some servers, pylsp's jedi among them, send
		// whole files) must only rename: one computed from another text
		// of the file — its disk version, while the editor holds unsaved
		// changes — would put that text back over them.
		if newText != newName && newText != strings.ReplaceAll(replaced, p.Symbol, newName) {
			return fmt.Errorf("the server's edit would change more than the name (it was computed for another text of the file: one with unsaved changes in the editor is read from its disk version by some servers); the user can save the file, then call rename_symbol again")
		}
		return nil
	}
	done, stop := applyWorkspaceEdit(ctx, call.Env.Files, we, check)
	tellServers(ctx, call, done)
	if len(done) == 0 && stop == nil {
		return Errorf(fmt.Sprintf("%s proposed no change for renaming %s to %s; nothing was changed", we.Server, p.Symbol, newName))
	}
	intro := fmt.Sprintf("Renamed %s to %s in %d file%s (%s):", p.Symbol, newName, len(done), plural(len(done)), we.Server)
	switch {
	case stop != nil && len(done) == 0:
		intro = ""
	case stop != nil:
		intro = fmt.Sprintf("Renaming %s to %s (%s) stopped. Changed:", p.Symbol, newName, we.Server)
	}
	out := changesResult(call, intro+othersNote(we), done, stop)
	out.Summary = fmt.Sprintf("%s → %s: %d file%s", p.Symbol, newName, len(done), plural(len(done)))
	return out
}

// editRequestError words a failed rename or formatting request: the
// server's own refusal, a position the file moved away from, or a
// failure of the request itself. Nothing was changed in any case.
func editRequestError(what string, err error) Result {
	var refused *capabilities.ServerError
	switch {
	case errors.Is(err, capabilities.ErrStalePosition):
		return Errorf(fmt.Sprintf("%v. Nothing was changed; call again, and the symbol is looked up in the file's current text.", err))
	case errors.As(err, &refused):
		return Errorf(fmt.Sprintf("%s refused the %s: %s. Nothing was changed.", refused.Server, what, refused.Message))
	}
	res := lspError(err)
	res.Text += ". Nothing was changed."
	return res
}

// refuseFileOperations refuses an edit that also creates, renames or
// deletes files: the tools change file contents only.
func refuseFileOperations(we capabilities.WorkspaceEdit) *Result {
	if len(we.FileOperations) == 0 {
		return nil
	}
	r := Errorf(fmt.Sprintf("%s's edit would also %s, which this tool does not do. Nothing was changed; move files with bash_command and change them with edit_file instead.",
		we.Server, strings.Join(we.FileOperations, ", ")))
	return &r
}

func othersNote(we capabilities.WorkspaceEdit) string {
	if len(we.Others) == 0 {
		return ""
	}
	return fmt.Sprintf(" (%s answered too; only the first server's edit is applied, as two servers' edits of one text conflict)", strings.Join(we.Others, ", "))
}

// tellServers tells the language servers which files changed on disk
// (those no buffer holds are not synchronised otherwise).
func tellServers(ctx context.Context, call Call, done []fileChange) {
	if len(done) == 0 || call.Env.LSP == nil {
		return
	}
	paths := make([]string, len(done))
	for i, c := range done {
		paths[i] = c.path
	}
	call.Env.LSP.FilesChanged(ctx, paths)
}
