// Package rewind takes checkpoints of the workspace as a thread works and
// puts files back as they were before one of the user's messages.
//
// It plugs into the thread core without editing its loop: a
// chat.Observer takes a checkpoint when a user message joins a thread's
// history, and a tools.Interceptor takes one before and one after every
// tool call that may change files (edits, writes, commands — confined or
// approved —, language-server edits, MCP tools; sub-agents' calls are
// intercepted as their own threads'). The checkpoints live in a private
// store (package checkpoint), never in the user's repository.
//
// Snapshots run one at a time on one goroutine, in the order asked: a
// message's checkpoint, queued without waiting, is taken before the
// checkpoint of the first tool call its turn makes. Each holds the files
// on disk and, winning over them, the unsaved text of the editor's
// modified buffers (Buffers).
//
// Restoring (Restore) puts back every file the checkpoint holds that
// differs now: changed files restored, deleted ones recreated, created
// ones removed. Files no buffer shows are written to disk all or nothing
// (checkpoint.ApplyToDisk); a file loaded in a buffer is then written
// through the buffer (one undo step, so `u` brings the agent's version
// back). A file changed since the last checkpoint the agent's work left
// — by the user, in a buffer or on disk — is a conflict: Restore refuses
// and names them unless forced (the editor asks first).
//
// Only local threads are checkpointed: a Docker thread's files live in
// its container, and Restore says so instead of doing nothing.
package rewind
