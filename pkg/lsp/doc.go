// Package lsp adapts Neovim's own language-server clients to
// capabilities.LspClient and DiagnosticsProvider, so the agent asks the
// servers the user's configuration runs (configured their way) and never
// configures its own.
//
// A request goes to lua/magenta/lsp.lua, which loads the file into a
// hidden buffer (so the user's configuration attaches its servers, or
// starts one configured for the file's type), waits a bounded time for a
// client supporting the method, sends it to every such client with the
// position converted to that client's encoding (UTF-16, UTF-8 or UTF-32 —
// positions travel from Go as byte columns), and answers asynchronously
// with an "lsp_result" event that the host hands to Adapter.Deliver.
// Diagnostics wait the same way until every server attached to (or
// starting for) a buffer has reported on its current text
// (lua/magenta/lsp_reports.lua).
//
// The symbol and editing requests (ask.go, symbols.go, edits.go) go
// through lua/magenta/lsp_ask.lua the same way; it refuses a position
// whose text no longer holds the symbol (capabilities.ErrStalePosition),
// and a rename or formatting answer is the first server's proposed
// WorkspaceEdit, which the tools apply through their FileIO. A server
// that exits mid-request is answered for by lsp.lua's watchdog (Neovim
// drops an exited client's callbacks). Supports tells which requests the
// running servers advertise, so each tool is offered only when one can
// answer it.
//
// Available tells whether the LSP tools are offered: a server runs, or
// the configuration would start one for the workspace's files
// (lua/magenta/lsp_configured.lua). A request Neovim does not answer in
// time — it holds requests at a "Press ENTER" prompt — ends with a
// NoAnswerError that names the prompt and what to do.
package lsp
