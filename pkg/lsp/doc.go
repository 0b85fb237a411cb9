// Package lsp adapts Neovim's own language-server clients to
// capabilities.LspClient and DiagnosticsProvider, so the agent asks the
// servers the user already runs (configured their way) and never starts
// its own.
//
// A request goes to lua/magenta/lsp.lua, which loads the file into a
// buffer (so the user's configuration attaches its servers), waits a
// bounded time for a client supporting the method, sends it to every such
// client with the position converted to that client's encoding (UTF-16,
// UTF-8 or UTF-32 — positions travel from Go as byte columns), and answers
// asynchronously with an "lsp_result" event that the host hands to
// Adapter.Deliver. Diagnostics are read synchronously from
// vim.diagnostic.
package lsp
