// Package view turns chat state into what the display buffer shows, and
// computes the smallest edit that brings the buffer from one frame to the
// next. It imports no Neovim code: every function is pure, so the UI is
// tested with golden files and no editor.
//
// A Frame is a list of Sections, one per thread entry (a user message, an
// assistant reply, a tool call, a notice) plus a header and a status line.
// A Section is immutable once built and carries an ID and a Version; the
// thread re-renders only the sections whose entry changed (a streamed
// reply is two sections, its finished lines and the line being streamed),
// and publishes the history before the current turn as a settled prefix
// that successive frames share. Diff skips that prefix at once and the
// sections whose (ID, Version) it already applied, so appending a streamed
// delta to a long thread costs work proportional to the change, not to the
// buffer.
//
// Lines carry their highlights; Bindings map a semantic key ("activate",
// "toggle") on a range of a section's lines to an Action the host routes
// back to the section's owner.
package view
