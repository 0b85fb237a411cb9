package lsp

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

func TestDecodeWorkspaceEdit(t *testing.T) {
	edit := func(line, from, to int, text string) capabilities.TextEdit {
		return capabilities.TextEdit{StartLine: line, StartCol: from, EndLine: line, EndCol: to, NewText: text}
	}
	r := func(line, from, to int) string {
		return `{"start":{"line":` + itoa(line) + `,"character":` + itoa(from) + `},"end":{"line":` + itoa(line) + `,"character":` + itoa(to) + `}}`
	}
	tests := []struct {
		name, raw string
		want      capabilities.WorkspaceEdit
	}{
		{"null", `null`, capabilities.WorkspaceEdit{}},
		{"empty tables from Lua", `{"changes":{},"documentChanges":{}}`, capabilities.WorkspaceEdit{}},
		{"changes, sorted by path", `{"changes":{"file:///w/b.go":[{"range":` + r(1, 2, 7) + `,"newText":"Hello"}],"file:///w/a%20b.go":[{"range":` + r(0, 0, 5) + `,"newText":"Hello"}]}}`,
			capabilities.WorkspaceEdit{Files: []capabilities.FileEdit{
				{Path: "/w/a b.go", Encoding: "utf-16", Edits: []capabilities.TextEdit{edit(0, 0, 5, "Hello")}},
				{Path: "/w/b.go", Encoding: "utf-16", Edits: []capabilities.TextEdit{edit(1, 2, 7, "Hello")}},
			}}},
		{"documentChanges in order, one file's edits merged, annotated edits and file operations",
			`{"documentChanges":[
				{"textDocument":{"uri":"file:///w/b.go","version":3},"edits":[{"range":` + r(1, 2, 7) + `,"newText":"Hello"}]},
				{"textDocument":{"uri":"file:///w/a.go","version":null},"edits":[{"range":` + r(0, 0, 5) + `,"newText":"Hello","annotationId":"x"}]},
				{"textDocument":{"uri":"file:///w/b.go","version":3},"edits":[{"range":` + r(4, 0, 5) + `,"newText":"Hello"}]},
				{"kind":"rename","oldUri":"file:///w/a.go","newUri":"file:///w/hello.go"},
				{"kind":"create","uri":"file:///w/new.go"}]}`,
			capabilities.WorkspaceEdit{Files: []capabilities.FileEdit{
				{Path: "/w/b.go", Encoding: "utf-16", Edits: []capabilities.TextEdit{edit(1, 2, 7, "Hello"), edit(4, 0, 5, "Hello")}},
				{Path: "/w/a.go", Encoding: "utf-16", Edits: []capabilities.TextEdit{edit(0, 0, 5, "Hello")}},
			}, FileOperations: []string{"rename /w/a.go → /w/hello.go", "create /w/new.go"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeWorkspaceEdit(json.RawMessage(tt.raw), "utf-16")
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// The first server (by start order) that answered wins; one that
// refused is passed over, the others are named.
func TestFirstEdit(t *testing.T) {
	answers := []clientAnswer{
		{Client: "linter", ID: 1, Error: "not supported here"},
		{Client: "gopls", ID: 2, Encoding: "utf-8", Result: json.RawMessage(`{"changes":{"file:///a.go":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}},"newText":"x"}]}}`)},
		{Client: "other", ID: 3, Result: json.RawMessage(`null`)},
	}
	got, err := firstEdit("textDocument/rename", answers, decodeWorkspaceEdit)
	require.NoError(t, err)
	assert.Equal(t, "gopls", got.Server)
	assert.Equal(t, "utf-8", got.Files[0].Encoding)
	assert.Equal(t, []string{"other"}, got.Others)

	_, err = firstEdit("textDocument/rename", answers[:1], decodeWorkspaceEdit)
	var refused *capabilities.ServerError
	require.ErrorAs(t, err, &refused)
	assert.Equal(t, "linter refused textDocument/rename: not supported here", err.Error())

	_, err = firstEdit("textDocument/rename", []clientAnswer{{Client: "gopls", Exited: true, Error: "the language server gopls exited before it answered"}}, decodeWorkspaceEdit)
	assert.EqualError(t, err, "textDocument/rename: the language server gopls exited before it answered (it may have crashed)")
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
