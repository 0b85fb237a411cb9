// Package lsp will adapt Neovim's own language-server clients to the
// capabilities.LspClient and DiagnosticsProvider interfaces, so the agent
// asks the servers the user already runs instead of starting its own.
// It is empty until that capability is built.
package lsp
