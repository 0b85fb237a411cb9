package capabilities

import (
	"context"
	"time"
)

// Bounds of the check that follows an edit (pkg/lspverify). They are the
// capability's contract: edit_file and write_file quote them to the model.
const (
	// LSPVerifyWait is how long, unless lsp.verifyTimeout says otherwise,
	// an edit's result waits for the servers to report on the text
	// before it and on the text after it (each wait has its own bound).
	LSPVerifyWait = 3 * time.Second
	// LSPVerifyMaxLines caps the diagnostics an edit's result lists; the
	// rest are counted ("… and N more").
	LSPVerifyMaxLines = 20
	// LSPVerifyAttachWait bounds the wait for a server to attach to a
	// file loaded for the check: configurations attach in the FileType
	// autocommand or a loop turn later, and a file type no server serves
	// (Markdown in a Go workspace) must not cost every edit seconds.
	LSPVerifyAttachWait = 500 * time.Millisecond
)

// DiagnosticsSnapshot is what the servers attached to one file have
// reported on its current text, as DiagnosticsWatcher.Snapshot saw it
// when its wait ended.
type DiagnosticsSnapshot struct {
	// Items carry the reporting server's name (Diagnostic.Server).
	Items []Diagnostic
	// Servers are the servers attached to the file when the wait ended.
	Servers []string
	// Pending are the attached (or starting) servers that had not
	// reported on the current text when the wait ended; Silent those of
	// them that had not reported on the file at all since it was loaded
	// (their Items are missing, not old).
	Pending, Silent []string
	// Absent: the file does not exist; nothing was loaded.
	Absent bool
	// Held: holder holds the file's hidden buffer (this call loaded it,
	// or found it loaded for another check); Release gives it back.
	Held bool
}

// DiagnosticsWatcher is implemented by a DiagnosticsProvider that can
// check an edit: a snapshot before it and one after, each waiting (up to
// wait, cut short by ctx) for the servers to report on the text as it is.
// A file no buffer holds is loaded into a hidden buffer, which touches no
// window, jump list or alternate file, so the user's configuration
// attaches its servers; the buffer stays loaded while a holder (a name
// unique to one check) holds it. Safe for concurrent use.
type DiagnosticsWatcher interface {
	Snapshot(ctx context.Context, path string, wait time.Duration, holder string) (DiagnosticsSnapshot, error)
	// Release gives back holder's hold on path's buffer, if it has one
	// (so it is safe after a failed Snapshot); the last hold given back
	// unloads the buffer unless the user opened it meanwhile. It does not
	// wait for the editor.
	Release(path, holder string)
}
