package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/memfs"
)

func TestApplyTextEdits(t *testing.T) {
	edit := func(sl, sc, el, ec int, text string) capabilities.TextEdit {
		return capabilities.TextEdit{StartLine: sl, StartCol: sc, EndLine: el, EndCol: ec, NewText: text}
	}
	tests := []struct {
		name, content, enc string
		edits              []capabilities.TextEdit
		want, err          string
	}{
		{"utf-16 after an astral character", "a😀b Greet\n", "utf-16", []capabilities.TextEdit{edit(0, 5, 0, 10, "Hello")}, "a😀b Hello\n", ""},
		{"utf-32 counts it once", "a😀b Greet\n", "utf-32", []capabilities.TextEdit{edit(0, 4, 0, 9, "Hello")}, "a😀b Hello\n", ""},
		{"utf-8 counts bytes", "ü Greet\n", "utf-8", []capabilities.TextEdit{edit(0, 3, 0, 8, "Hello")}, "ü Hello\n", ""},
		{"CRLF: the \\r is not in the line", "x\r\ny\r\n", "utf-16", []capabilities.TextEdit{edit(0, 99, 0, 99, "!")}, "x!\r\ny\r\n", ""},
		{"a line past the end is the end", "a\n", "utf-16", []capabilities.TextEdit{edit(5, 0, 5, 0, "b\n")}, "a\nb\n", ""},
		{"edits in any order, inserts keep theirs", "ab", "utf-16",
			[]capabilities.TextEdit{edit(0, 1, 0, 2, "B"), edit(0, 0, 0, 0, "1"), edit(0, 0, 0, 0, "2")}, "12aB", ""},
		{"across lines", "one\ntwo\nthree\n", "utf-16", []capabilities.TextEdit{edit(0, 1, 2, 2, "-")}, "o-ree\n", ""},
		{"overlap", "abcdef", "utf-16", []capabilities.TextEdit{edit(0, 0, 0, 3, "x"), edit(0, 2, 0, 4, "y")}, "", "two edits overlap"},
		{"backwards", "abc\ndef", "utf-16", []capabilities.TextEdit{edit(1, 0, 0, 1, "x")}, "", "ends (line 1) before it starts (line 2)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := applyTextEdits(tt.content, tt.enc, tt.edits, nil)
			if tt.err != "" {
				assert.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// fakeLSP answers the symbol and editing requests from its fields.
type fakeLSP struct {
	capabilities.NoLSP
	support   map[string]capabilities.LSPSupport
	edit      capabilities.WorkspaceEdit
	err       error
	symbols   []capabilities.Symbol
	locations []capabilities.Location
	changed   []string
}

func (f *fakeLSP) Supports(method string) capabilities.LSPSupport { return f.support[method] }
func (f *fakeLSP) Rename(context.Context, string, capabilities.Position, string, string) (capabilities.WorkspaceEdit, error) {
	return f.edit, f.err
}
func (f *fakeLSP) Format(context.Context, string) (capabilities.WorkspaceEdit, error) {
	return f.edit, f.err
}
func (f *fakeLSP) DocumentSymbols(context.Context, string) ([]capabilities.Symbol, error) {
	return f.symbols, f.err
}
func (f *fakeLSP) WorkspaceSymbols(context.Context, string) ([]capabilities.Symbol, error) {
	return f.symbols, f.err
}
func (f *fakeLSP) Definition(context.Context, string, capabilities.Position) ([]capabilities.Location, error) {
	return f.locations, f.err
}
func (f *fakeLSP) FilesChanged(_ context.Context, paths []string) {
	f.changed = append(f.changed, paths...)
}

// askingFS is memfs behind a stand-in for the permission guard: paths
// outside /w are refused to reads without questions and, for writes,
// answered with yes. It records the order of writes.
type askingFS struct {
	inner  *memfs.FS
	yes    bool
	mu     sync.Mutex
	writes []string
}

var _ capabilities.FileIO = (*askingFS)(nil)

func (f *askingFS) asks(ctx context.Context, path string, write bool) error {
	if strings.HasPrefix(path, "/w/") {
		return nil
	}
	if capabilities.NoQuestions(ctx) || write && !f.yes {
		return &capabilities.DeniedError{What: path, Reason: map[bool]string{true: "it is outside the workspace", false: "the user declined"}[capabilities.NoQuestions(ctx)]}
	}
	return nil
}

func (f *askingFS) Open(ctx context.Context, p string) (io.ReadCloser, error) {
	if err := f.asks(ctx, p, false); err != nil {
		return nil, err
	}
	return f.inner.Open(ctx, p)
}
func (f *askingFS) ReadFile(ctx context.Context, p string) ([]byte, error) {
	if err := f.asks(ctx, p, false); err != nil {
		return nil, err
	}
	return f.inner.ReadFile(ctx, p)
}
func (f *askingFS) WriteFile(ctx context.Context, p string, data []byte) error {
	return f.Update(ctx, p, 1<<30, func([]byte) ([]byte, error) { return data, nil })
}
func (f *askingFS) Update(ctx context.Context, p string, max int64, change func([]byte) ([]byte, error)) error {
	if err := f.asks(ctx, p, true); err != nil {
		return err
	}
	f.mu.Lock()
	f.writes = append(f.writes, p)
	f.mu.Unlock()
	return f.inner.Update(ctx, p, max, change)
}
func (f *askingFS) Stat(ctx context.Context, p string) (capabilities.FileInfo, error) {
	if err := f.asks(ctx, p, false); err != nil {
		return capabilities.FileInfo{}, err
	}
	return f.inner.Stat(ctx, p)
}
func (f *askingFS) Exists(ctx context.Context, p string) (bool, error) { return f.inner.Exists(ctx, p) }
func (f *askingFS) MkdirAll(ctx context.Context, p string) error       { return f.inner.MkdirAll(ctx, p) }

// renameGreet is gopls's edit renaming Greet (declared in a.go, used in
// b.go and in /lib/c.go outside the workspace) to Hello.
func renameGreet() capabilities.WorkspaceEdit {
	at := func(path string, line, col int) capabilities.FileEdit {
		return capabilities.FileEdit{Path: path, Encoding: "utf-16", Edits: []capabilities.TextEdit{{StartLine: line, StartCol: col, EndLine: line, EndCol: col + 5, NewText: "Hello"}}}
	}
	return capabilities.WorkspaceEdit{Server: "gopls", Files: []capabilities.FileEdit{at("/w/a.go", 2, 5), at("/w/b.go", 2, 8), at("/lib/c.go", 0, 4)}}
}

func renameEnv(lsp *fakeLSP, yes bool) (*capabilities.Environment, *askingFS) {
	files := &askingFS{inner: memfs.New(), yes: yes}
	files.inner.Put("/w/a.go", []byte("package a\n\nfunc Greet() {}\n"))
	files.inner.Put("/w/b.go", []byte("package a\n\nvar _ = Greet\n"))
	files.inner.Put("/lib/c.go", []byte("_ = Greet\n"))
	return &capabilities.Environment{Cwd: "/w", Files: files, LSP: lsp, LSPAvailable: func() bool { return true }}, files
}

func runLSPTool(t *testing.T, tool Tool, env *capabilities.Environment, input any) Result {
	t.Helper()
	raw, err := json.Marshal(input)
	require.NoError(t, err)
	return tool.Run(context.Background(), Call{Env: env, Input: raw})
}

// The file that asks is written first: a "no" stops the rename before
// any other file changed.
func TestRenameAsksForOutsideFilesFirst(t *testing.T) {
	lsp := &fakeLSP{edit: renameGreet()}
	env, files := renameEnv(lsp, true)
	res := runLSPTool(t, RenameSymbol(), env, map[string]string{"filePath": "a.go", "symbol": "Greet", "newName": "Hello"})
	require.False(t, res.IsError, res.Text)
	assert.Equal(t, "Renamed Greet to Hello in 3 files (gopls):\n/lib/c.go +1 -1\na.go +1 -1\nb.go +1 -1", res.Text)
	assert.Equal(t, []string{"/lib/c.go", "/w/a.go", "/w/b.go"}, files.writes)
	assert.Equal(t, "Greet → Hello: 3 files", res.Summary)
	assert.Contains(t, res.Diff, "+func Hello() {}")
	assert.Contains(t, res.Diff, "+var _ = Hello")
	assert.Equal(t, []string{"/lib/c.go", "/w/a.go", "/w/b.go"}, lsp.changed, "the servers are told")

	lsp = &fakeLSP{edit: renameGreet()}
	env, files = renameEnv(lsp, false)
	res = runLSPTool(t, RenameSymbol(), env, map[string]string{"filePath": "a.go", "symbol": "Greet", "newName": "Hello"})
	require.True(t, res.IsError)
	assert.Contains(t, res.Text, "Nothing was changed: /lib/c.go was not changed: the user declined.")
	got, _ := files.inner.ReadFile(context.Background(), "/w/a.go")
	assert.Contains(t, string(got), "func Greet()")
}

func TestRenameRefusesWhatDoesNotFit(t *testing.T) {
	stale := renameGreet()
	stale.Files[1].Edits[0].StartCol = 7 // " Greet" would be replaced: b.go moved on
	for _, tt := range []struct {
		name string
		lsp  *fakeLSP
		want string
	}{
		{"an edit over other text", &fakeLSP{edit: stale}, `Nothing was changed: the edit of b.go does not fit: an edit meant to replace Greet with Hello would replace " Greet": the text changed after the server computed the rename; call rename_symbol again`},
		{"the server's refusal", &fakeLSP{err: &capabilities.ServerError{Server: "gopls", Method: "textDocument/rename", Message: `invalid identifier to rename: "1x"`}},
			`gopls refused the rename: invalid identifier to rename: "1x". Nothing was changed.`},
		{"a stale position", &fakeLSP{err: fmt.Errorf("%w: Greet is no longer at line 3, column 6 of /w/a.go: the file changed", capabilities.ErrStalePosition)},
			"the symbol is no longer at that position: Greet is no longer at line 3, column 6 of /w/a.go: the file changed. Nothing was changed; call again"},
		{"file operations", &fakeLSP{edit: capabilities.WorkspaceEdit{Server: "gopls", FileOperations: []string{"rename /w/a.go → /w/b.go"}}},
			"gopls's edit would also rename /w/a.go → /w/b.go, which this tool does not do. Nothing was changed"},
		{"a crash", &fakeLSP{err: fmt.Errorf("textDocument/rename: the language server gopls exited before it answered")},
			"the language server request failed: textDocument/rename: the language server gopls exited before it answered. Nothing was changed."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			env, files := renameEnv(tt.lsp, true)
			res := runLSPTool(t, RenameSymbol(), env, map[string]string{"filePath": "a.go", "symbol": "Greet", "newName": "Hello"})
			require.True(t, res.IsError)
			assert.Contains(t, res.Text, tt.want)
			assert.Empty(t, files.writes)
		})
	}
}

// A write that fails midway says which files changed and which did not.
func TestRenameStoppedMidway(t *testing.T) {
	we := renameGreet()
	we.Files = append(we.Files[:2], capabilities.FileEdit{Path: "/w/gone.go", Encoding: "utf-16"})
	we.Files[2].Edits = []capabilities.TextEdit{{EndCol: 5, NewText: "Hello"}}
	env, files := renameEnv(&fakeLSP{edit: we}, true)
	files.inner.Put("/w/gone.go", []byte("Greet"))
	// gone.go is removed after the check, before its write.
	env.Files = &removeOnWrite{askingFS: files, path: "/w/gone.go"}
	res := runLSPTool(t, RenameSymbol(), env, map[string]string{"filePath": "a.go", "symbol": "Greet", "newName": "Hello"})
	require.True(t, res.IsError)
	assert.Equal(t, "Renaming Greet to Hello (gopls) stopped. Changed:\na.go +1 -1\nb.go +1 -1\nStopped: gone.go does not exist\n"+
		"The files listed above were changed (each is one undo step in the editor); the change is incomplete until the others are changed too.", res.Text)
}

type removeOnWrite struct {
	*askingFS
	path string
}

func (r *removeOnWrite) Update(ctx context.Context, p string, max int64, change func([]byte) ([]byte, error)) error {
	if p == r.path {
		return fmt.Errorf("update %s: %w", p, capabilities.ErrNotExist)
	}
	return r.askingFS.Update(ctx, p, max, change)
}

func TestSymbolListsAreBounded(t *testing.T) {
	var syms []capabilities.Symbol
	for i := range DocumentSymbolsMax + 7 {
		syms = append(syms, capabilities.Symbol{Name: fmt.Sprintf("F%d", i), Kind: "function", Path: "/w/a.go", Line: i})
	}
	env, _ := renameEnv(&fakeLSP{symbols: syms}, true)
	res := runLSPTool(t, DocumentSymbols(), env, map[string]string{"filePath": "a.go"})
	require.False(t, res.IsError, res.Text)
	lines := strings.Split(res.Text, "\n")
	assert.Len(t, lines, DocumentSymbolsMax+1)
	assert.Equal(t, "function F0 (line 1)", lines[0])
	assert.Equal(t, "… and 7 more symbols (grep the file for one).", lines[DocumentSymbolsMax])

	// Workspace symbols: those in files that would ask are left out and
	// counted; past the bound the rest is counted without a check.
	ws := []capabilities.Symbol{{Name: "Secret", Kind: "constant", Path: "/lib/c.go"}}
	for i := range WorkspaceSymbolsMax + 3 {
		ws = append(ws, capabilities.Symbol{Name: fmt.Sprintf("T%d", i), Kind: "struct", Container: "example.com/a", Path: "/w/a.go", Line: i, Col: 5})
	}
	env, _ = renameEnv(&fakeLSP{symbols: ws}, true)
	res = runLSPTool(t, WorkspaceSymbols(), env, map[string]string{"query": "T"})
	require.False(t, res.IsError, res.Text)
	lines = strings.Split(res.Text, "\n")
	assert.Len(t, lines, WorkspaceSymbolsMax+2)
	assert.Equal(t, "struct T0 in example.com/a — a.go:1:6", lines[0])
	assert.Equal(t, "… and 3 more; refine the query.", lines[WorkspaceSymbolsMax])
	assert.Equal(t, "1 more in files the model may not read without asking (outside the workspace, or secrets) were left out.", lines[WorkspaceSymbolsMax+1])
	assert.NotContains(t, res.Text, "Secret")

	env, _ = renameEnv(&fakeLSP{symbols: ws[:1]}, true)
	res = runLSPTool(t, WorkspaceSymbols(), env, map[string]string{"query": "Secret"})
	assert.Equal(t, `No symbols match "Secret" in files the model may read without asking; 1 in other files (outside the workspace, or secrets) were left out.`, res.Text)
}

func TestDefinitionShowsLinesOfReadableFiles(t *testing.T) {
	lsp := &fakeLSP{locations: []capabilities.Location{{Path: "/w/a.go", Line: 2, Col: 5}, {Path: "/lib/c.go", Line: 0, Col: 4}}}
	env, _ := renameEnv(lsp, true)
	res := runLSPTool(t, Definition(), env, map[string]string{"filePath": "b.go", "symbol": "Greet"})
	require.False(t, res.IsError, res.Text)
	assert.Equal(t, "a.go:3:6\n1\tpackage a\n2\t\n3\tfunc Greet() {}\n\n/lib/c.go:1:5\n(lines not shown: it is outside the workspace; get_file asks the user for them)", res.Text)
	assert.Equal(t, "2 definitions", res.Summary)
	assert.Equal(t, &Location{Path: "/w/a.go", Line: 3}, res.Location)
}

// The LSP tools are offered by what the servers support: a configured
// server not started yet offers all but workspace_symbols (no file to
// start it with); a running one offers what it advertises.
func TestLSPToolsAreOfferedByWhatTheServersSupport(t *testing.T) {
	reg := Default()
	lsp := &fakeLSP{support: map[string]capabilities.LSPSupport{}}
	env, _ := renameEnv(lsp, true)
	env.Diagnostics = capabilities.NoLSP{}
	lspTools := func() []string {
		var out []string
		for _, name := range offeredNames(reg, env) {
			switch name {
			case "definition", "document_symbols", "workspace_symbols", "rename_symbol", "format_file":
				out = append(out, name)
			}
		}
		return out
	}
	assert.Empty(t, lspTools())
	for _, m := range []string{capabilities.LSPDefinition, capabilities.LSPDocumentSymbols, capabilities.LSPWorkspaceSymbols, capabilities.LSPRename, capabilities.LSPFormatting} {
		lsp.support[m] = capabilities.LSPMaybe
	}
	assert.Equal(t, []string{"definition", "document_symbols", "format_file", "rename_symbol"}, lspTools())
	lsp.support = map[string]capabilities.LSPSupport{capabilities.LSPDocumentSymbols: capabilities.LSPSupported, capabilities.LSPWorkspaceSymbols: capabilities.LSPSupported}
	assert.Equal(t, []string{"document_symbols", "workspace_symbols"}, lspTools())
}

// The check reads an unmodified buffer's file from the disk and the write
// reads the buffer, which has a final newline the file lacks under
// 'fixeol': that is no change in between.
func TestRenameIgnoresAFinalNewlineTheBufferAdds(t *testing.T) {
	env, files := renameEnv(&fakeLSP{edit: renameGreet()}, true)
	env.Files = &withoutFinalNewline{files}
	res := runLSPTool(t, RenameSymbol(), env, map[string]string{"filePath": "a.go", "symbol": "Greet", "newName": "Hello"})
	require.False(t, res.IsError, res.Text)
	assert.Len(t, files.writes, 3)
}

type withoutFinalNewline struct{ *askingFS }

func (w *withoutFinalNewline) ReadFile(ctx context.Context, p string) ([]byte, error) {
	data, err := w.askingFS.ReadFile(ctx, p)
	return []byte(strings.TrimSuffix(string(data), "\n")), err
}

// A server's edit that changes more than the name (computed from another
// text of the file, as pylsp's jedi does from the disk version of a file
// with unsaved changes) is refused before anything is written.
func TestRenameRefusesAnEditThatChangesMoreThanTheName(t *testing.T) {
	we := renameGreet()
	we.Files[1].Edits = []capabilities.TextEdit{{EndLine: 99, NewText: "package a\n\nfunc Hello() {}\n"}}
	env, files := renameEnv(&fakeLSP{edit: we}, true)
	res := runLSPTool(t, RenameSymbol(), env, map[string]string{"filePath": "a.go", "symbol": "Greet", "newName": "Hello"})
	require.True(t, res.IsError)
	assert.Contains(t, res.Text, "would change more than the name")
	assert.Empty(t, files.writes)
}
