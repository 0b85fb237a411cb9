package capabilities

import (
	"context"
	"errors"
)

// The LSP methods the symbol and editing tools send, by their protocol
// names (what servers advertise and Supports is asked about).
const (
	LSPDefinition       = "textDocument/definition"
	LSPDocumentSymbols  = "textDocument/documentSymbol"
	LSPWorkspaceSymbols = "workspace/symbol"
	LSPRename           = "textDocument/rename"
	LSPFormatting       = "textDocument/formatting"
)

// LSPSupport says whether a request can be answered now.
type LSPSupport int

const (
	// LSPUnsupported: no running server advertises the request, and none
	// configured for the workspace's files is still to start.
	LSPUnsupported LSPSupport = iota
	// LSPMaybe: a server the configuration starts for the workspace's
	// files has not started yet; what it supports is known only once it
	// runs (a request that loads one of its files starts it).
	LSPMaybe
	// LSPSupported: a running server advertises the request.
	LSPSupported
)

// ErrStalePosition: the symbol is no longer where the request was made
// for (the file changed between reading it and asking the server).
var ErrStalePosition = errors.New("the symbol is no longer at that position")

// ServerError is a server's own refusal of a request (an invalid new
// name for a rename), with its message.
type ServerError struct {
	Server, Method, Message string
}

func (e *ServerError) Error() string { return e.Server + " refused " + e.Method + ": " + e.Message }

// Symbol is one symbol a server listed.
type Symbol struct {
	Name   string
	Detail string // the signature or type, when the server gives one
	Kind   string // "function", "struct", … (LSP SymbolKind names, lower case)
	// Container is the enclosing symbol's name (workspace symbols).
	Container string
	Path      string
	// Line and Col are 0-based, Col in the server's encoding.
	Line, Col int
	// Depth is the nesting level of a document symbol (0: top level);
	// the list is in document order, children after their parent.
	Depth int
}

// TextEdit replaces a range with NewText. Lines are 0-based, columns in
// the encoding of the FileEdit holding it.
type TextEdit struct {
	StartLine, StartCol, EndLine, EndCol int
	NewText                              string
}

// FileEdit is a server's edits of one file.
type FileEdit struct {
	Path string
	// Encoding is the columns' unit: "utf-16" (the LSP default),
	// "utf-8" or "utf-32".
	Encoding string
	Edits    []TextEdit
}

// WorkspaceEdit is a change a server proposed, not yet applied: the
// caller applies it through its FileIO, so permissions, buffers and undo
// behave as for any edit.
type WorkspaceEdit struct {
	Server string
	Files  []FileEdit
	// FileOperations lists the files the server also wants created,
	// renamed or deleted ("rename a.go → b.go"), which are not applied.
	FileOperations []string
	// Others names the other servers that answered too; their edits
	// are left out, since two servers' edits of one text conflict.
	Others []string
}

func (NoLSP) DocumentSymbols(context.Context, string) ([]Symbol, error) { return nil, errNoLSP }
func (NoLSP) WorkspaceSymbols(context.Context, string) ([]Symbol, error) {
	return nil, errNoLSP
}
func (NoLSP) Rename(context.Context, string, Position, string, string) (WorkspaceEdit, error) {
	return WorkspaceEdit{}, errNoLSP
}
func (NoLSP) Format(context.Context, string) (WorkspaceEdit, error) {
	return WorkspaceEdit{}, errNoLSP
}
func (NoLSP) FilesChanged(context.Context, []string) {}
func (NoLSP) Supports(string) LSPSupport             { return LSPUnsupported }
