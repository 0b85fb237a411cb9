// Package acp is `magenta-host acp`: magenta as an Agent Client Protocol
// agent over stdio (github.com/coder/acp-go-sdk), so an editor that
// speaks ACP (Zed, avante.nvim, codecompanion.nvim) drives the same
// threads, tools, checker and sandbox as the Neovim sidebar.
//
// It is a third front end over chat.App. A session is a thread of one
// App working in the local environment of the session's cwd (built by
// pkg/localenv); prompts are sent to it and the turn's events, observed
// on every thread (a chat.Observer), become session/update
// notifications — message and thought chunks, tool calls and their
// updates, the plan from todo_write — written in order by one writer
// goroutine that the prompt's answer waits for. Approvals go to the
// client as session/request_permission through an approval.Policy
// (YES / ALWAYS / NO). session/cancel, or a client that goes away,
// aborts the turn as :Magenta abort does (a call it cuts short is told
// failed); a client that goes away also ends the agent, which returns
// once every thread, command and prompt handler has stopped. A second
// prompt while one runs in the session supersedes it: the SDK cancels the
// running prompt's context when the next arrives, so that turn aborts and
// the new prompt waits for its answer, then runs. session/load reopens
// a saved thread (the Neovim host's store) and replays its conversation.
//
// Files (clientfs.go). When the client offers fs/read_text_file and
// fs/write_text_file (initialize's clientCapabilities.fs), the text of
// regular files is read and written through it, so its unsaved buffers
// are the truth, as Neovim's are for the sidebar; binary files, images,
// new files, files over 1 MiB, directories, Stat and the rest stay on
// the disk. This FileIO sits under the permission guard, which still
// judges every path. A client follows symlinks, so a path goes to it
// only when, judged on the local disk (the client runs on this machine),
// none of its components is a link and it is the path the guard judged;
// an inotify watch on its directories then tells whether anything on the
// path changed while the client answered (a read falls back to the disk,
// which opens the judged file and no other; a write fails with
// capabilities.ErrChangedWhileChecked). A write the client holds unsaved
// leaves the disk as it was: our tools read back through the same
// FileIO and see the client's text, while commands see the disk until
// the user saves.
//
// Progress (progress.go). While a session's tool call runs, its content
// is updated at most four times a second: a command's latest output
// lines, and for spawn_subagents / wait_for_subagents one block per
// sub-agent with its state and last tool calls, results and messages
// (a sub-agent is recognised by its first message, the spawn's prompt;
// its questions go to its parent's session). The result replaces that
// content when the call ends.
//
// Terminals are not used, though ACP offers them (terminal/create and
// the rest, clientCapabilities.terminal): there the client runs the
// command, outside the command checker, the sandbox and the process
// supervisor every bash_command goes through, and outside the approvals.
// Commands run here; their output reaches the client as text, as above.
//
// Not yet: the config file's MCP servers and hooks run as setup()'s; a
// workspace's .mcp.json and hooks are not read.
package acp
