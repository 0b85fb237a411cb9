package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

//go:embed hover.md
var hoverDescription string

//go:embed find_references.md
var findReferencesDescription string

//go:embed diagnostics.md
var diagnosticsDescription string

// lspTimes are the waits the LSP tools' descriptions quote.
var lspTimes = map[string]string{
	"Wait":            capabilities.LSPClientWait.String(),
	"Timeout":         capabilities.LSPRequestTimeout.String(),
	"DiagnosticsWait": capabilities.LSPDiagnosticsWait.String(),
}

// SymbolParams locates a symbol in a file.
type SymbolParams struct {
	FilePath string `json:"filePath" jsonschema:"the file containing the symbol, relative to the workspace root"`
	Symbol   string `json:"symbol" jsonschema:"the identifier as it appears in the file"`
	Context  string `json:"context,omitempty" jsonschema:"optional text around the symbol, to pick one occurrence"`
}

// DiagnosticsParams selects whose diagnostics to list.
type DiagnosticsParams struct {
	FilePath string `json:"filePath,omitempty" jsonschema:"one file, relative to the workspace root (default: every open buffer)"`
}

// Hover returns the hover tool.
func Hover() Tool { return MustTyped("hover", hoverDescription, lspTimes, runHover) }

// FindReferences returns the find_references tool.
func FindReferences() Tool {
	return MustTyped("find_references", findReferencesDescription, lspTimes, runReferences)
}

// Diagnostics returns the diagnostics tool.
func Diagnostics() Tool {
	return MustTyped("diagnostics", diagnosticsDescription, lspTimes, runDiagnostics)
}

func runHover(ctx context.Context, call Call, p SymbolParams) Result {
	path, pos, res := locate(ctx, call, p)
	if res != nil {
		return *res
	}
	hovers, err := call.Env.LSP.Hover(ctx, path, pos)
	if err != nil {
		return lspError(err)
	}
	var b strings.Builder
	for _, h := range hovers {
		b.WriteString(strings.TrimSpace(h.Text) + "\n\n")
	}
	if len(hovers) == 0 {
		fmt.Fprintf(&b, "No hover information for %s.\n\n", p.Symbol)
	}
	for _, kind := range []struct {
		label string
		get   func(context.Context, string, capabilities.Position) ([]capabilities.Location, error)
	}{{"Definition", call.Env.LSP.Definition}, {"Type definition", call.Env.LSP.TypeDefinition}} {
		if locs, err := kind.get(ctx, path, pos); err == nil {
			for _, l := range locs {
				fmt.Fprintf(&b, "%s: %s\n", kind.label, formatLocation(call.Env.Cwd, l))
			}
		}
	}
	return Result{Text: strings.TrimSpace(b.String()), Summary: p.Symbol}
}

func runReferences(ctx context.Context, call Call, p SymbolParams) Result {
	path, pos, res := locate(ctx, call, p)
	if res != nil {
		return *res
	}
	locs, err := call.Env.LSP.References(ctx, path, pos)
	if err != nil {
		return lspError(err)
	}
	if len(locs) == 0 {
		return Result{Text: fmt.Sprintf("No references to %s.", p.Symbol), Summary: "no references"}
	}
	lines := make([]string, len(locs))
	for i, l := range locs {
		lines[i] = formatLocation(call.Env.Cwd, l)
	}
	return Result{Text: strings.Join(lines, "\n"), Summary: fmt.Sprintf("%d references", len(locs))}
}

func runDiagnostics(ctx context.Context, call Call, p DiagnosticsParams) Result {
	if call.Env == nil || call.Env.Diagnostics == nil {
		return Errorf("this environment has no language servers")
	}
	path := ""
	if p.FilePath != "" {
		path = resolveToolPath(call.Env, p.FilePath)
		// The servers read the file and the model gets their words about
		// it: the file passes the read check first (a secret or a file
		// outside the workspace asks), before Neovim loads it.
		if call.Env.Files == nil {
			return Errorf("this environment has no files")
		}
		if _, err := call.Env.Files.Stat(ctx, path); err != nil {
			return fileError(path, err)
		}
	}
	report, err := call.Env.Diagnostics.Diagnostics(ctx, path)
	if err != nil {
		return lspError(err)
	}
	diags, withheld := readableDiagnostics(ctx, call.Env.Files, report.Items, path)
	// Never "no problems" when a server has not spoken yet, or its words
	// are unknown: say so, and list what is known.
	var notYet []string
	if len(report.NotReported) > 0 {
		notYet = append(notYet, fmt.Sprintf("Not reported yet after %s (the list may be incomplete; ask again shortly): %s",
			capabilities.LSPDiagnosticsWait, strings.Join(report.NotReported, ", ")))
	}
	if len(report.Unseen) > 0 {
		notYet = append(notYet, fmt.Sprintf(UnseenReports, strings.Join(report.Unseen, ", ")))
	}
	if len(diags) == 0 {
		if len(notYet) > 0 {
			return Result{Text: withheld + strings.Join(notYet, "\n"), Summary: "servers have not reported yet"}
		}
		if withheld != "" {
			return Result{Text: strings.TrimSpace(withheld), Summary: "none readable"}
		}
		if report.NoBufferServed {
			return Result{Text: NoBufferServed, Summary: "no language server"}
		}
		if len(report.NoServer) > 0 {
			paths := make([]string, len(report.NoServer))
			for i, p := range report.NoServer {
				paths[i] = relToCwd(call.Env.Cwd, p)
			}
			return Result{Text: fmt.Sprintf("No diagnostics: no language server is attached to %s (waited %s), so nothing reports on it.",
				strings.Join(paths, ", "), capabilities.LSPClientWait), Summary: "no language server"}
		}
		return Result{Text: "No diagnostics.", Summary: "none"}
	}
	lines := make([]string, len(diags), len(diags)+len(notYet)+1)
	for i, d := range diags {
		src := ""
		if d.Source != "" {
			src = " (" + d.Source + ")"
		}
		lines[i] = fmt.Sprintf("%s %s: %s%s", d.Severity, formatLocation(call.Env.Cwd, capabilities.Location{Path: d.Path, Line: d.Line, Col: d.Col}), d.Message, src)
	}
	lines = append(lines, notYet...)
	if withheld != "" {
		lines = append(lines, strings.TrimSpace(withheld))
	}
	return Result{Text: strings.Join(lines, "\n"), Summary: fmt.Sprintf("%d diagnostics", len(diags))}
}

// readableDiagnostics keeps the diagnostics of files the model may read
// without asking: a server's words about a file carry its content (a
// spell checker quotes the words of ~/.ssh/id_rsa), so the diagnostics
// of every open buffer pass the same read check as get_file — without
// questions, since a buffer the user has open is no request of the
// model's. withheld says what was left out ("" when nothing). checked is
// the one file already checked with a question (the filePath form).
func readableDiagnostics(ctx context.Context, files capabilities.FileIO, diags []capabilities.Diagnostic, checked string) (kept []capabilities.Diagnostic, withheld string) {
	if files == nil {
		return diags, ""
	}
	quiet := capabilities.WithoutQuestions(ctx)
	ok := map[string]bool{}
	var left []string
	for _, d := range diags {
		allowed, seen := ok[d.Path]
		if !seen {
			_, err := files.Stat(quiet, d.Path)
			var denied *capabilities.DeniedError
			allowed = d.Path == checked || !errors.As(err, &denied) // only what the check refuses is left out
			ok[d.Path] = allowed
			if !allowed {
				left = append(left, d.Path)
			}
		}
		if allowed {
			kept = append(kept, d)
		}
	}
	if len(left) > 0 {
		withheld = fmt.Sprintf("Left out: the diagnostics of %d open file(s) the model may not read without asking (%s); call diagnostics with filePath to ask the user.\n",
			len(left), strings.Join(left, ", "))
	}
	return kept, withheld
}

// locate finds the symbol in the file as the user sees it (buffer-aware);
// a non-nil Result is the error to return.
func locate(ctx context.Context, call Call, p SymbolParams) (string, capabilities.Position, *Result) {
	fail := func(msg string) (string, capabilities.Position, *Result) {
		r := Errorf(msg)
		return "", capabilities.Position{}, &r
	}
	if call.Env == nil || call.Env.LSP == nil || call.Env.Files == nil {
		return fail("this environment has no language servers")
	}
	if strings.TrimSpace(p.Symbol) == "" {
		return fail("symbol must not be empty")
	}
	path := resolveToolPath(call.Env, p.FilePath)
	content, err := call.Env.Files.ReadFile(ctx, path)
	if err != nil {
		r := fileError(path, err)
		return "", capabilities.Position{}, &r
	}
	pos, err := SymbolPosition(string(content), p.Symbol, p.Context)
	if err != nil {
		return fail(fmt.Sprintf("%s: %v", path, err))
	}
	return path, pos, nil
}

// SymbolPosition finds symbol (a whole word when it is an identifier)
// inside context when given, else its first occurrence, and returns its
// 0-based line and byte column.
func SymbolPosition(content, symbol, context string) (capabilities.Position, error) {
	base, region := 0, content
	if context != "" {
		i := strings.Index(content, context)
		if i < 0 {
			return capabilities.Position{}, fmt.Errorf("the context %q does not occur in the file", context)
		}
		base, region = i, context
	}
	off := indexCode(region, symbol)
	if off < 0 {
		return capabilities.Position{}, fmt.Errorf("%q does not occur in the file%s", symbol, map[bool]string{true: " within the context", false: ""}[context != ""])
	}
	off += base
	line := strings.Count(content[:off], "\n")
	col := off - (strings.LastIndexByte(content[:off], '\n') + 1)
	return capabilities.Position{Line: line, Col: col}, nil
}

// commentMarkers start comment lines in most languages.
var commentMarkers = []string{"//", "#", "--", "/*", "*", ";", "%"}

// indexCode finds word as indexWord does, preferring an occurrence on a
// line that is not a comment (a doc comment usually names the symbol
// before its declaration, and servers answer nothing there).
func indexCode(s, word string) int {
	first := -1
	for from := 0; from <= len(s); {
		i := indexWord(s[from:], word)
		if i < 0 {
			break
		}
		i += from
		if first < 0 {
			first = i
		}
		line := strings.TrimSpace(s[strings.LastIndexByte(s[:i], '\n')+1 : i])
		comment := false
		for _, m := range commentMarkers {
			if strings.HasPrefix(line, m) {
				comment = true
			}
		}
		if !comment {
			return i
		}
		from = i + len(word)
	}
	return first
}

// indexWord finds word where it is not part of a longer identifier.
func indexWord(s, word string) int {
	for from := 0; ; {
		i := strings.Index(s[from:], word)
		if i < 0 {
			return -1
		}
		i += from
		before, _ := utf8.DecodeLastRuneInString(s[:i])
		after, _ := utf8.DecodeRuneInString(s[i+len(word):])
		if !isIdent(before) && !isIdent(after) {
			return i
		}
		from = i + 1
	}
}

func isIdent(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// formatLocation is "path:line:col", 1-based, relative to cwd when below.
func formatLocation(cwd string, l capabilities.Location) string {
	return fmt.Sprintf("%s:%d:%d", relToCwd(cwd, l.Path), l.Line+1, l.Col+1)
}

// relToCwd shows p relative to cwd when it is inside it.
func relToCwd(cwd, p string) string {
	if r, err := filepath.Rel(cwd, p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return p
}

// UnseenReports names (%s) the servers whose one report on an unchanged
// file may have come before magenta followed them.
const UnseenReports = "Unknown what %s reported: magenta began following the language servers after they started (its setup() ran late), and the one report on an unchanged file does not come again, so the list may be incomplete. Editing the file makes its server report again."

// NoBufferServed is the diagnostics result when no open buffer has a
// language server and the model did not name a file.
const NoBufferServed = "No diagnostics: no open buffer has a language server attached, so nothing reports on them. Pass filePath to check a file: it is opened, which starts the language server configured for its type."

func lspError(err error) Result {
	if errors.Is(err, capabilities.ErrNoLanguageServer) || errors.Is(err, capabilities.ErrEditorNotAnswering) {
		return Errorf(err.Error())
	}
	return Errorf("the language server request failed: " + err.Error())
}
