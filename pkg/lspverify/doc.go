// Package lspverify tells the model what an edit did to the language
// servers' view of the file: after edit_file or write_file, the
// diagnostics the change introduced or fixed are appended to the tool's
// result (and drawn under its diff, tools.Result.Notes).
//
// Verifier is a tools.Interceptor (the host adds it last, after what must
// happen before a call). Around a call it takes two snapshots through
// capabilities.DiagnosticsWatcher (pkg/lsp over
// lua/magenta/lsp_reports.lua): one before the edit and one after it,
// each waiting — bounded by lsp.verifyTimeout — until every server
// attached to the file has reported on the text as it then is. The
// reports are matched per buffer version (changedtick), so the "after"
// list is the servers' answer to the new text, not a late answer to the
// old one. A file no buffer holds is loaded into a hidden buffer for the
// check and unloaded after it (wiped when the check made the buffer),
// unless the user opened it meanwhile; shared by parallel checks of one
// file through a hold count.
//
// The delta (delta.go) is pure: Compare matches a diagnostic before with
// one after when severity, message, source and server agree and the edit
// moved the first's line to the second's — LineMap, read from the
// edit's unified diff (linemap.go), says where each old line went.
// Matching counts duplicates. Lines lists introduced then fixed, errors
// first, capped at capabilities.LSPVerifyMaxLines. Servers that did not
// report on the new text in time, stopped during the check, or had never
// reported before the edit are named, and their diagnostics left out of
// the comparison rather than guessed at.
//
// Nothing is checked in environments whose diagnostics are not the
// editor's (Docker, in-memory: their Diagnostics is no watcher), for
// failed calls, for files outside the workspace, or for files the model
// may not read without asking.
package lspverify
