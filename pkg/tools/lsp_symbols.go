package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

//go:embed document_symbols.md
var documentSymbolsDescription string

//go:embed workspace_symbols.md
var workspaceSymbolsDescription string

// Bounds of the symbol lists (the descriptions quote them).
const (
	DocumentSymbolsMax  = 300
	WorkspaceSymbolsMax = 50
)

// FileParams names one file.
type FileParams struct {
	FilePath string `json:"filePath" jsonschema:"the file, relative to the workspace root"`
}

// QueryParams is a workspace symbol search.
type QueryParams struct {
	Query string `json:"query" jsonschema:"the symbol name or part of it (servers match fuzzily)"`
}

// DocumentSymbols returns the document_symbols tool.
func DocumentSymbols() Tool {
	data := map[string]any{"Wait": capabilities.LSPClientWait.String(), "Max": DocumentSymbolsMax}
	return newLSPTool(MustTyped("document_symbols", documentSymbolsDescription, data, runDocumentSymbols), "document_symbols", capabilities.LSPDocumentSymbols, false)
}

// WorkspaceSymbols returns the workspace_symbols tool. It has no file
// to load, so it starts no server: it is offered only while one runs.
func WorkspaceSymbols() Tool {
	data := map[string]any{"Max": WorkspaceSymbolsMax}
	return newLSPTool(MustTyped("workspace_symbols", workspaceSymbolsDescription, data, runWorkspaceSymbols), "workspace_symbols", capabilities.LSPWorkspaceSymbols, true)
}

func runDocumentSymbols(ctx context.Context, call Call, p FileParams) Result {
	path, res := lspFile(ctx, call, p.FilePath)
	if res != nil {
		return *res
	}
	syms, err := call.Env.LSP.DocumentSymbols(ctx, path)
	if err != nil {
		return lspError(err)
	}
	rel := relToCwd(call.Env.Cwd, path)
	if len(syms) == 0 {
		return Result{Text: fmt.Sprintf("No symbols in %s.", rel), Summary: "none"}
	}
	var b strings.Builder
	for i, s := range syms {
		if i == DocumentSymbolsMax {
			fmt.Fprintf(&b, "… and %d more symbols (grep the file for one).\n", len(syms)-i)
			break
		}
		fmt.Fprintf(&b, "%s%s\n", strings.Repeat("  ", s.Depth), symbolLine(s))
	}
	return Result{Text: strings.TrimRight(b.String(), "\n"), Summary: fmt.Sprintf("%d symbols in %s", len(syms), rel)}
}

// symbolLine is "kind name detail (line N)".
func symbolLine(s capabilities.Symbol) string {
	line := s.Kind + " " + s.Name
	if s.Detail != "" {
		line += " " + cutMiddle(s.Detail, LSPLineChars)
	}
	return fmt.Sprintf("%s (line %d)", line, s.Line+1)
}

func runWorkspaceSymbols(ctx context.Context, call Call, p QueryParams) Result {
	if call.Env == nil || call.Env.LSP == nil {
		return Errorf("this environment has no language servers")
	}
	if strings.TrimSpace(p.Query) == "" {
		return Errorf("query must not be empty")
	}
	syms, err := call.Env.LSP.WorkspaceSymbols(ctx, p.Query)
	if err != nil {
		if errors.Is(err, capabilities.ErrNoLanguageServer) {
			return Errorf(err.Error() + ". Servers start when a file of their type is loaded: call document_symbols or definition on a file first.")
		}
		return lspError(err)
	}
	kept, withheld, more := readableSymbols(ctx, call.Env.Files, syms, WorkspaceSymbolsMax)
	if len(kept) == 0 {
		text := fmt.Sprintf("No symbols match %q.", p.Query)
		if withheld > 0 {
			text = fmt.Sprintf("No symbols match %q in files the model may read without asking; %d in other files (outside the workspace, or secrets) were left out.", p.Query, withheld)
		}
		return Result{Text: text, Summary: "none"}
	}
	var b strings.Builder
	for _, s := range kept {
		in := ""
		if s.Container != "" {
			in = " in " + s.Container
		}
		fmt.Fprintf(&b, "%s %s%s — %s\n", s.Kind, s.Name, in, formatLocation(call.Env.Cwd, capabilities.Location{Path: s.Path, Line: s.Line, Col: s.Col}))
	}
	if more > 0 {
		fmt.Fprintf(&b, "… and %d more; refine the query.\n", more)
	}
	if withheld > 0 {
		fmt.Fprintf(&b, "%d more in files the model may not read without asking (outside the workspace, or secrets) were left out.\n", withheld)
	}
	return Result{Text: strings.TrimRight(b.String(), "\n"), Summary: fmt.Sprintf("%d symbols", len(kept))}
}

// readableSymbols keeps, up to max, the symbols of files the model may
// read without asking, as readableDiagnostics does: a symbol's name is
// its file's content (a query may match anything a server indexed).
// withheld counts those left out; more those past max, not checked.
func readableSymbols(ctx context.Context, files capabilities.FileIO, syms []capabilities.Symbol, max int) (kept []capabilities.Symbol, withheld, more int) {
	quiet := capabilities.WithoutQuestions(ctx)
	ok := map[string]bool{}
	for i, s := range syms {
		if len(kept) == max {
			return kept, withheld, len(syms) - i
		}
		allowed, seen := ok[s.Path]
		if !seen && files != nil {
			_, err := files.Stat(quiet, s.Path)
			var denied *capabilities.DeniedError
			allowed = !errors.As(err, &denied)
			ok[s.Path] = allowed
		} else if !seen {
			allowed = true
		}
		if allowed {
			kept = append(kept, s)
		} else {
			withheld++
		}
	}
	return kept, withheld, 0
}

// lspFile resolves the file an LSP tool asks a server about. What the
// server says is the file's content, and the server reads it through
// Neovim: the file passes get_file's read check first (a secret, or a
// file outside the workspace, asks). A non-nil Result is the error.
func lspFile(ctx context.Context, call Call, filePath string) (string, *Result) {
	fail := func(r Result) (string, *Result) { return "", &r }
	if call.Env == nil || call.Env.LSP == nil || call.Env.Files == nil {
		return fail(Errorf("this environment has no language servers"))
	}
	if strings.TrimSpace(filePath) == "" {
		return fail(Errorf("filePath must not be empty"))
	}
	path := resolveToolPath(call.Env, filePath)
	if _, err := call.Env.Files.Stat(ctx, path); err != nil {
		return fail(fileError(path, err))
	}
	return path, nil
}
