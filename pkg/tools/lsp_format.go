package tools

import (
	"context"
	_ "embed"
	"fmt"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

//go:embed format_file.md
var formatFileDescription string

// FormatFile returns the format_file tool.
func FormatFile() Tool {
	return newLSPTool(MustTyped("format_file", formatFileDescription, lspTimes, runFormat), "format_file", capabilities.LSPFormatting, false)
}

func runFormat(ctx context.Context, call Call, p FileParams) Result {
	path, res := lspFile(ctx, call, p.FilePath)
	if res != nil {
		return *res
	}
	we, err := call.Env.LSP.Format(ctx, path)
	if err != nil {
		return editRequestError("formatting", err)
	}
	rel := relToCwd(call.Env.Cwd, path)
	done, stop := applyWorkspaceEdit(ctx, call.Env.Files, we, nil)
	tellServers(ctx, call, done)
	if len(done) == 0 && stop == nil {
		return Result{Text: fmt.Sprintf("%s is formatted already: %s changed nothing.", rel, we.Server), Summary: "no change"}
	}
	intro := fmt.Sprintf("Formatted %s with %s:", rel, we.Server)
	if stop != nil {
		intro = "" // nothing else was to change
	}
	out := changesResult(call, intro+othersNote(we), done, stop)
	if len(done) == 1 {
		added, removed := diffStats(out.Diff)
		out.Summary = fmt.Sprintf("formatted %s +%d -%d", rel, added, removed)
	}
	return out
}
