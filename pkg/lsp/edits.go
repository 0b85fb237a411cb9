package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// Rename implements capabilities.LspClient: the first server's (by
// start order) proposed edit for renaming the symbol at pos, which must
// still hold symbol. Nothing is applied.
func (a *Adapter) Rename(ctx context.Context, path string, pos capabilities.Position, symbol, newName string) (capabilities.WorkspaceEdit, error) {
	answers, err := a.ask(ctx, askSpec{Method: capabilities.LSPRename, Path: path, Line: pos.Line, Col: pos.Col, Symbol: symbol, NewName: newName})
	if err != nil {
		return capabilities.WorkspaceEdit{}, err
	}
	return firstEdit(capabilities.LSPRename, answers, decodeWorkspaceEdit)
}

// Format implements capabilities.LspClient: the first formatting
// server's edits of path (two formatters' edits of one text conflict).
func (a *Adapter) Format(ctx context.Context, path string) (capabilities.WorkspaceEdit, error) {
	answers, err := a.ask(ctx, askSpec{Method: capabilities.LSPFormatting, Path: path})
	if err != nil {
		return capabilities.WorkspaceEdit{}, err
	}
	return firstEdit(capabilities.LSPFormatting, answers, func(raw json.RawMessage, encoding string) (capabilities.WorkspaceEdit, error) {
		var edits []lspTextEdit
		if err := jsonList(raw, &edits); err != nil {
			return capabilities.WorkspaceEdit{}, fmt.Errorf("undecodable edits: %w", err)
		}
		var out capabilities.WorkspaceEdit
		if len(edits) > 0 {
			out.Files = []capabilities.FileEdit{{Path: path, Encoding: encoding, Edits: textEdits(edits)}}
		}
		return out, nil
	})
}

// firstEdit decodes the answer of the first server that answered
// without an error and names the others that answered too.
func firstEdit(method string, answers []clientAnswer, decode func(json.RawMessage, string) (capabilities.WorkspaceEdit, error)) (capabilities.WorkspaceEdit, error) {
	if err := failed(method, answers); err != nil {
		return capabilities.WorkspaceEdit{}, err
	}
	var out capabilities.WorkspaceEdit
	found := false
	for _, ans := range answers {
		if ans.Error != "" {
			continue
		}
		if found {
			out.Others = append(out.Others, ans.Client)
			continue
		}
		edit, err := decode(ans.Result, ans.Encoding)
		if err != nil {
			return capabilities.WorkspaceEdit{}, fmt.Errorf("%s from %s: %w", method, ans.Client, err)
		}
		out.Server, out.Files, out.FileOperations, found = ans.Client, edit.Files, edit.FileOperations, true
	}
	if !found {
		return capabilities.WorkspaceEdit{}, fmt.Errorf("%s: no server answered", method)
	}
	return out, nil
}

type lspTextEdit struct {
	Range   lspRange `json:"range"`
	NewText string   `json:"newText"`
}

func textEdits(in []lspTextEdit) []capabilities.TextEdit {
	out := make([]capabilities.TextEdit, len(in))
	for i, e := range in {
		out[i] = capabilities.TextEdit{StartLine: e.Range.Start.Line, StartCol: e.Range.Start.Character,
			EndLine: e.Range.End.Line, EndCol: e.Range.End.Character, NewText: e.NewText}
	}
	return out
}

// decodeWorkspaceEdit reads a WorkspaceEdit: documentChanges (text
// document edits and file operations, in order) when present, else
// changes (by URI, sorted by path). Edits of one file are merged.
func decodeWorkspaceEdit(raw json.RawMessage, encoding string) (capabilities.WorkspaceEdit, error) {
	var out capabilities.WorkspaceEdit
	if len(raw) == 0 || string(raw) == "null" {
		return out, nil
	}
	var we struct {
		Changes         json.RawMessage `json:"changes"`
		DocumentChanges json.RawMessage `json:"documentChanges"`
	}
	if err := json.Unmarshal(raw, &we); err != nil {
		return out, fmt.Errorf("undecodable workspace edit: %w", err)
	}
	byPath := map[string]int{}
	add := func(uri string, edits []lspTextEdit) {
		if len(edits) == 0 {
			return
		}
		path := uriPath(uri)
		i, ok := byPath[path]
		if !ok {
			i = len(out.Files)
			byPath[path] = i
			out.Files = append(out.Files, capabilities.FileEdit{Path: path, Encoding: encoding})
		}
		out.Files[i].Edits = append(out.Files[i].Edits, textEdits(edits)...)
	}
	var docChanges []json.RawMessage
	if err := jsonList(we.DocumentChanges, &docChanges); err != nil {
		return out, fmt.Errorf("undecodable documentChanges: %w", err)
	}
	if len(docChanges) > 0 {
		for _, dc := range docChanges {
			var c struct {
				Kind         string               `json:"kind"`
				URI          string               `json:"uri"`
				OldURI       string               `json:"oldUri"`
				NewURI       string               `json:"newUri"`
				TextDocument struct{ URI string } `json:"textDocument"`
				Edits        json.RawMessage      `json:"edits"`
			}
			if err := json.Unmarshal(dc, &c); err != nil {
				return out, fmt.Errorf("undecodable document change: %w", err)
			}
			switch c.Kind {
			case "create", "delete":
				out.FileOperations = append(out.FileOperations, c.Kind+" "+uriPath(c.URI))
				continue
			case "rename":
				out.FileOperations = append(out.FileOperations, "rename "+uriPath(c.OldURI)+" → "+uriPath(c.NewURI))
				continue
			}
			var edits []lspTextEdit
			if err := jsonList(c.Edits, &edits); err != nil {
				return out, fmt.Errorf("undecodable edits: %w", err)
			}
			add(c.TextDocument.URI, edits)
		}
		return out, nil
	}
	var changes map[string]json.RawMessage
	if len(we.Changes) > 0 && string(we.Changes) != "[]" {
		if err := json.Unmarshal(we.Changes, &changes); err != nil {
			return out, fmt.Errorf("undecodable changes: %w", err)
		}
	}
	uris := make([]string, 0, len(changes))
	for uri := range changes {
		uris = append(uris, uri)
	}
	sort.Strings(uris)
	for _, uri := range uris {
		var edits []lspTextEdit
		if err := jsonList(changes[uri], &edits); err != nil {
			return out, fmt.Errorf("undecodable edits: %w", err)
		}
		add(uri, edits)
	}
	return out, nil
}
