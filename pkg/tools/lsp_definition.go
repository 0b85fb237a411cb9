package tools

import (
	"bufio"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

//go:embed definition.md
var definitionDescription string

// Bounds of definition's answer (definition.md quotes them).
const (
	// DefinitionMaxResults caps the definitions listed (an interface
	// method can have many).
	DefinitionMaxResults = 20
	// DefinitionContextResults is how many of them come with lines of
	// the file: DefinitionContextBefore lines before the definition's
	// (a doc comment) and DefinitionContextAfter after (its signature
	// and first lines).
	DefinitionContextResults = 5
	DefinitionContextBefore  = 2
	DefinitionContextAfter   = 4
	// LSPLineChars cuts the lines the LSP tools quote.
	LSPLineChars = 300
)

// Definition returns the definition tool.
func Definition() Tool {
	data := map[string]any{
		"Wait": capabilities.LSPClientWait.String(), "Timeout": capabilities.LSPRequestTimeout.String(),
		"Max": DefinitionMaxResults, "WithLines": DefinitionContextResults,
		"Before": DefinitionContextBefore, "After": DefinitionContextAfter,
	}
	return newLSPTool(MustTyped("definition", definitionDescription, data, runDefinition), "definition", capabilities.LSPDefinition, false)
}

func runDefinition(ctx context.Context, call Call, p SymbolParams) Result {
	path, pos, res := locate(ctx, call, p)
	if res != nil {
		return *res
	}
	locs, err := call.Env.LSP.Definition(ctx, path, pos)
	if err != nil {
		return lspError(err)
	}
	if len(locs) == 0 {
		return Result{Text: fmt.Sprintf("No definition found for %s.", p.Symbol), Summary: "none"}
	}
	var b strings.Builder
	// A definition outside the workspace (the standard library, a
	// dependency) is named, but its lines are not read without asking:
	// the model can ask for them with get_file.
	quiet := capabilities.WithoutQuestions(ctx)
	for i, l := range locs {
		if i == DefinitionMaxResults {
			fmt.Fprintf(&b, "… and %d more definitions.\n", len(locs)-i)
			break
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(formatLocation(call.Env.Cwd, l) + "\n")
		if i >= DefinitionContextResults {
			continue
		}
		lines, err := linesAround(quiet, call.Env.Files, l.Path, l.Line)
		var denied *capabilities.DeniedError
		switch {
		case errors.As(err, &denied):
			fmt.Fprintf(&b, "(lines not shown: %s; get_file asks the user for them)\n", denied.Reason)
		case err != nil:
			fmt.Fprintf(&b, "(lines not shown: %v)\n", err)
		default:
			b.WriteString(lines)
		}
	}
	first := locs[0]
	summary := relToCwd(call.Env.Cwd, first.Path) + fmt.Sprintf(":%d", first.Line+1)
	if len(locs) > 1 {
		summary = fmt.Sprintf("%d definitions", len(locs))
	}
	return Result{Text: strings.TrimSpace(b.String()), Summary: summary, Location: &Location{Path: first.Path, Line: first.Line + 1}}
}

// linesAround reads the lines around 0-based line of path as get_file
// shows them ("N<TAB>text"), reading no further than needed.
func linesAround(ctx context.Context, files capabilities.FileIO, path string, line int) (string, error) {
	if files == nil {
		return "", errors.New("this environment has no files")
	}
	r, err := files.Open(ctx, path)
	if err != nil {
		return "", err
	}
	defer r.Close()
	from, to := max(0, line-DefinitionContextBefore), line+DefinitionContextAfter
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	var b strings.Builder
	for n := 0; n <= to && sc.Scan(); n++ {
		if n >= from {
			fmt.Fprintf(&b, "%d\t%s\n", n+1, cutMiddle(strings.TrimRight(sc.Text(), "\r"), LSPLineChars))
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return b.String(), nil
}
