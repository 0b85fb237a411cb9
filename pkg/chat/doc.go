// Package chat holds conversation threads and the agent loop.
//
// A Thread is owned by one goroutine (Thread.run). Everything that
// changes it — user input, stream events, tool results, key actions,
// title changes from tools — arrives as a message in its inbox, and only
// the owner mutates state, so there are no locks on thread state. Stream
// and tool goroutines are started by the owner with a context derived
// from the turn's and report back through the inbox; abort cancels that
// context and settles the conversation at once, so the provider always
// sees a consistent history (every tool_use answered). What the thread
// is doing — idle, reading context, awaiting the model, running tools,
// compacting, closing — is one answer, state() (state.go, with its
// diagram); every "may it start X now" check asks it. NewThread and
// RestoreThread share one constructor (newThread). What reacts to a
// thread's life — its saved log, a sub-agent's report to its parent — is
// an Observer of typed ThreadEvents (events.go), told on the thread's
// goroutine; a restored thread attaches its observers after the rebuild.
// What acts around a tool call (before it, vetoing it, adding to its
// result) is a tools.Interceptor in Deps.Interceptors, run on the call's
// worker.
//
// After a burst of messages the owner renders the entries that changed
// (package view) and publishes a Frame to the Display; the host applies
// frames to the buffer in batches.
//
// App owns the set of threads and the sidebar state, on its own
// goroutine, and routes commands from the RPC edge.
//
// Sub-agents are threads too (subagents*.go): Thread implements
// tools.Subagents, the App creates a spawn's children (a shallow copy of
// the parent's Environment, the type's tools and profile), a per-parent
// limiter starts them in spawn order, and children report to their parent
// through a small record and a coalescing signal, never a blocking send,
// so a parent and its children cannot wait for each other.
//
// Long threads: a model's thinking streams into a folded entry and its
// blocks stay in the history with their signatures (thinking.go).
// Compaction (compaction*.go) replaces the history with a summary the
// model writes on a worker goroutine — before a message once the last
// request passed the profile's threshold, between the requests of a long
// turn, before the turn of messages queued during one, on :Magenta compact, or once after a prompt-too-long answer; the
// owner swaps the history only when the summary has arrived, and saves
// it with the thread (a HistoryCompacted event the log observes, persist.go).
// A thread's first request waits, up to ToolServerWait and on a worker
// goroutine, for the tool servers (MCP) still starting (toolwait.go).
// Every message the user sends goes into one queue, t.pending, drawn as
// queued below everything (entries.go: queue); dispatch (turn.go) moves
// the oldest on when the thread is idle — compaction first when due,
// then the read of the context files, then its turn — and a turn's end
// sends everything that waited as the next turn, after the turn's usage
// line; that line is saved with the thread and drawn again on reopen
// (usage.go).
// An interactive command's Terminal (terminal.go) reaches the thread
// through the call's tools.Live; the tick copies its screen into the
// block, and the terminal key asks Terminals (the editor) to open its
// window, which reports back opened and closed as messages.
package chat
