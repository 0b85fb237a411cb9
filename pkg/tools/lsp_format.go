package tools

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

//go:embed format_file.md
var formatFileDescription string

// FormatFile returns the format_file tool.
func FormatFile() Tool {
	return newLSPTool(MustTyped("format_file", formatFileDescription, lspTimes, runFormat), "format_file", capabilities.LSPFormatting, false)
}

func runFormat(ctx context.Context, call Call, p FileParams) Result {
	if call.Env == nil || call.Env.LSP == nil || call.Env.Files == nil {
		return Errorf("this environment has no language servers")
	}
	if strings.TrimSpace(p.FilePath) == "" {
		return Errorf("filePath must not be empty")
	}
	path := resolveToolPath(call.Env, p.FilePath)
	if _, err := call.Env.Files.Stat(ctx, path); err != nil {
		return fileError(path, err)
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
