// Package threadstore keeps chat threads on disk so they survive the host
// and the editor.
//
// Each workspace has a directory, <data>/magenta/threads/<key>/, where
// key is the workspace's sanitised base name and a short hash of its
// absolute path (WorkspaceKey): readable, and two checkouts called "app"
// never share one. Each thread is two files there:
//
//   - <id>.jsonl, the log: one JSON object per line, appended and never
//     rewritten. The first line is the header (id, creation time,
//     workspace, environment config, parent thread for sub-agents); then
//     message records (a provider.Message as the thread's history got
//     it), meta records (title, profile, usage), turn records (the usage
//     line drawn after a turn, read back with its place among the
//     messages and compactions: SavedTurnUsage) and compaction records
//     (the summary and the whole history right after it: loading resets
//     the history there, the display keeps what came before). Readers skip kinds they do
//     not know, so later kinds can be added without breaking old hosts.
//   - <id>.sum, the summary: title, last activity, message count,
//     environment and the log size it describes, rewritten atomically
//     (temp file + rename) after each append. Listing reads only these;
//     a summary whose size does not match its log (a crash between the
//     two writes) is rebuilt from the log.
//
// Crash safety: every record is one write(2) of one complete line on an
// O_APPEND descriptor, so a killed process leaves at most a torn last
// line, which Load ignores. A message is written when it is complete
// (the user's message, the model's reply, the tool results), so a
// kill -9 loses at most the text still streaming.
//
// One writer per thread: a Writer holds flock(LOCK_EX) on the log for as
// long as the thread is open. A second editor in the same workspace can
// list and Load the thread, but Create/OpenWriter fail with ErrLocked
// and it opens the thread read-only. The lock dies with the process, so
// a killed host never leaves a thread locked.
//
// A corrupt file (bad header, a broken line before the last) is skipped
// with one warning naming it; loading never panics on what it reads.
package threadstore
