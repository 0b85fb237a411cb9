package capabilities

import (
	"context"
	"errors"
	"time"
)

// ErrNoLanguageServer: no attached server supports the request.
var ErrNoLanguageServer = errors.New("no language server")

// ErrEditorNotAnswering: the editor did not answer a request in time
// (Neovim held by a prompt, say); the error says what to do. The tools
// pass such errors on as they are, without calling them a server failure.
var ErrEditorNotAnswering = errors.New("the editor did not answer")

// Bounds of one language-server request through the editor. They are
// the capability's contract (the tools quote them to the model), so they
// live here, not in the adapter that applies them.
const (
	// LSPClientWait is how long a request waits for a server to attach
	// (a file just loaded may still be starting one).
	LSPClientWait = 5 * time.Second
	// LSPDiagnosticsWait is how long the diagnostics tool waits for every
	// attached server to report on a file's current text (servers
	// publish asynchronously after an open or a change; gopls takes ~1 s
	// on a cold module).
	LSPDiagnosticsWait = 10 * time.Second
	// LSPRequestTimeout bounds a whole request.
	LSPRequestTimeout = 20 * time.Second
)

// Position is a 0-based line and byte column in a file.
type Position struct {
	Line, Col int
}

// Location is a place a server pointed at: a path and a 0-based line and
// column (the column in the server's encoding, UTF-16 unless negotiated).
type Location struct {
	Path      string
	Line, Col int
}

// Hover is one server's hover answer.
type Hover struct {
	Server string
	Text   string
}

// Diagnostic is one problem a server reported.
type Diagnostic struct {
	Path      string
	Line, Col int    // 0-based
	Severity  string // "error", "warning", "info", "hint"
	Message   string
	Source    string
	// Server is the language server that reported it, when known (a
	// DiagnosticsSnapshot's items).
	Server string
}

// LspClient asks the language servers the user's editor runs. Each
// method sends the request to every attached server that supports it and
// merges the answers. It fails with ErrNoLanguageServer (wrapped, with
// the reason) when none does within a bounded wait, and never hangs:
// cancelling ctx or the implementation's timeout ends it.
type LspClient interface {
	Hover(ctx context.Context, path string, pos Position) ([]Hover, error)
	References(ctx context.Context, path string, pos Position) ([]Location, error)
	Definition(ctx context.Context, path string, pos Position) ([]Location, error)
	TypeDefinition(ctx context.Context, path string, pos Position) ([]Location, error)
	// The symbol and editing requests (lsp_edit.go).
	DocumentSymbols(ctx context.Context, path string) ([]Symbol, error)
	WorkspaceSymbols(ctx context.Context, query string) ([]Symbol, error)
	Rename(ctx context.Context, path string, pos Position, symbol, newName string) (WorkspaceEdit, error)
	Format(ctx context.Context, path string) (WorkspaceEdit, error)
	// The code actions (lsp_code_action.go).
	CodeActioner
	// FilesChanged tells the servers that paths changed on disk behind
	// the editor's back (an applied WorkspaceEdit of files no buffer
	// holds); best effort, bounded like a request.
	FilesChanged(ctx context.Context, paths []string)
	// Supports tells which requests can be answered now (see LSPSupport).
	Supports(method string) LSPSupport
}

// Diagnostics is what the servers have reported. NotReported names the
// servers (with the file) that had not yet reported for the current text
// when the bounded wait ended: the list is then incomplete, and "no
// problems" must not be claimed.
type Diagnostics struct {
	Items       []Diagnostic
	NotReported []string
	// NoServer lists the files asked about that no server was attached
	// to when the wait ended: nobody reports on them.
	NoServer []string
	// Unseen names the servers (with the file) whose report on a file
	// unchanged since may have come before magenta began following the
	// reports (setup() ran after they attached): a clean file's leaves
	// no trace, and comes again only when the text changes.
	Unseen []string
	// NoBufferServed is set when the every-buffer form found no buffer a
	// server was attached to or starting for: nobody reports on anything
	// open (a configured server starts when a file of its type is asked
	// about).
	NoBufferServed bool
}

// DiagnosticsProvider lists the diagnostics of one file, or of every
// loaded buffer when path is "", after waiting (bounded, and cut short by
// ctx) for the attached servers to report on the current text.
type DiagnosticsProvider interface {
	Diagnostics(ctx context.Context, path string) (Diagnostics, error)
}

// NoLSP is the LspClient and DiagnosticsProvider of environments without
// language servers.
type NoLSP struct{}

func (NoLSP) Hover(context.Context, string, Position) ([]Hover, error) {
	return nil, errNoLSP
}
func (NoLSP) References(context.Context, string, Position) ([]Location, error) {
	return nil, errNoLSP
}
func (NoLSP) Definition(context.Context, string, Position) ([]Location, error) {
	return nil, errNoLSP
}
func (NoLSP) TypeDefinition(context.Context, string, Position) ([]Location, error) {
	return nil, errNoLSP
}
func (NoLSP) Diagnostics(context.Context, string) (Diagnostics, error) { return Diagnostics{}, nil }

var errNoLSP = errors.Join(ErrNoLanguageServer, errors.New("this environment has no language servers"))
