package lsp

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// symbolKinds names LSP's SymbolKind values (1-based).
var symbolKinds = []string{"file", "module", "namespace", "package", "class", "method", "property",
	"field", "constructor", "enum", "interface", "function", "variable", "constant", "string",
	"number", "boolean", "array", "object", "key", "null", "enum member", "struct", "event",
	"operator", "type parameter"}

func symbolKind(k int) string {
	if k >= 1 && k <= len(symbolKinds) {
		return symbolKinds[k-1]
	}
	return "symbol"
}

type lspPosition struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

type lspRange struct {
	Start lspPosition `json:"start"`
	End   lspPosition `json:"end"`
}

// lspSymbol decodes DocumentSymbol, SymbolInformation and
// WorkspaceSymbol alike (a WorkspaceSymbol's location may lack a range).
type lspSymbol struct {
	Name           string          `json:"name"`
	Detail         string          `json:"detail"`
	Kind           int             `json:"kind"`
	SelectionRange *lspRange       `json:"selectionRange"`
	Children       json.RawMessage `json:"children"`
	ContainerName  string          `json:"containerName"`
	Location       *struct {
		URI   string    `json:"uri"`
		Range *lspRange `json:"range"`
	} `json:"location"`
}

// DocumentSymbols implements capabilities.LspClient: every supporting
// server's symbols of path, in document order with children after their
// parent, without the duplicates two servers give.
func (a *Adapter) DocumentSymbols(ctx context.Context, path string) ([]capabilities.Symbol, error) {
	answers, err := a.ask(ctx, askSpec{Method: capabilities.LSPDocumentSymbols, Path: path})
	if err != nil {
		return nil, err
	}
	if err := failed(capabilities.LSPDocumentSymbols, answers); err != nil {
		return nil, err
	}
	var out []capabilities.Symbol
	seen := map[capabilities.Symbol]bool{}
	var walk func(raw json.RawMessage, depth int)
	walk = func(raw json.RawMessage, depth int) {
		var list []lspSymbol
		if jsonList(raw, &list) != nil {
			return
		}
		for _, s := range list {
			sym := capabilities.Symbol{Name: s.Name, Detail: oneLine(s.Detail), Kind: symbolKind(s.Kind), Container: s.ContainerName, Path: path, Depth: depth}
			switch {
			case s.SelectionRange != nil:
				sym.Line, sym.Col = s.SelectionRange.Start.Line, s.SelectionRange.Start.Character
			case s.Location != nil && s.Location.Range != nil:
				sym.Line, sym.Col = s.Location.Range.Start.Line, s.Location.Range.Start.Character
			}
			if !seen[sym] {
				seen[sym] = true
				out = append(out, sym)
			}
			walk(s.Children, depth+1)
		}
	}
	for _, ans := range answers {
		if ans.Error == "" {
			walk(ans.Result, 0)
		}
	}
	return out, nil
}

// WorkspaceSymbols implements capabilities.LspClient: the running
// servers' matches for query, each server's in its own order (servers
// rank them), without duplicates.
func (a *Adapter) WorkspaceSymbols(ctx context.Context, query string) ([]capabilities.Symbol, error) {
	answers, err := a.ask(ctx, askSpec{Method: capabilities.LSPWorkspaceSymbols, Query: query})
	if err != nil {
		return nil, err
	}
	if err := failed(capabilities.LSPWorkspaceSymbols, answers); err != nil {
		return nil, err
	}
	var out []capabilities.Symbol
	seen := map[capabilities.Symbol]bool{}
	for _, ans := range answers {
		var list []lspSymbol
		if ans.Error != "" || jsonList(ans.Result, &list) != nil {
			continue
		}
		for _, s := range list {
			if s.Location == nil || s.Location.URI == "" {
				continue
			}
			sym := capabilities.Symbol{Name: s.Name, Detail: oneLine(s.Detail), Kind: symbolKind(s.Kind), Container: s.ContainerName, Path: uriPath(s.Location.URI)}
			if r := s.Location.Range; r != nil {
				sym.Line, sym.Col = r.Start.Line, r.Start.Character
			}
			if !seen[sym] {
				seen[sym] = true
				out = append(out, sym)
			}
		}
	}
	return out, nil
}

// oneLine keeps a detail (a signature) on one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
